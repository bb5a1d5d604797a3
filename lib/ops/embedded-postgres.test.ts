import { describe, expect, it } from "vitest";
import { postgresArgs } from "./embedded-postgres";

describe("the embedded PostgreSQL's command line", () => {
  it("keeps PostgreSQL's crash safety on by default: no fsync=off, no full_page_writes=off", () => {
    const args = postgresArgs("/data", 5433);
    expect(args).toEqual([
      "-D",
      "/data",
      "-p",
      "5433",
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
    ]);
    expect(args.join(" ")).not.toMatch(/fsync|full_page_writes|synchronous_commit/);
  });

  it("turns it off only for a throwaway cluster", () => {
    const args = postgresArgs("/data", 5433, false).join(" ");
    expect(args).toContain("-c fsync=off");
    expect(args).toContain("-c full_page_writes=off");
    expect(args).toContain("listen_addresses=127.0.0.1");
  });
});
