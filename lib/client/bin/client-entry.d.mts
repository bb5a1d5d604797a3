export declare const REPO_CLIENT_BUNDLE: string;
export declare function bundledClientEntry(root: string, verb: string | undefined): string | null;
