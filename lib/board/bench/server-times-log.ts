/** Where the web server started by `timed-server.ts` appends each answer's server time, from the repository's root. */
export const SERVER_TIMES_LOG = ".build/bench/server-times.log";
