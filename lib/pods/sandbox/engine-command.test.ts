import { describe, expect, it } from "vitest";
import { ENTER_ENGINE, engineCommand } from "./engine-command";

describe("how the agent starts an engine's process", () => {
  const launch = ["/run/arena-pod/engine/launch.sh", "serve"];

  it("joins the engine cgroup through enter-engine.sh, which then drops to the engine user", () => {
    expect(
      engineCommand({ uid: 995, gid: 994 }, ["/cg/memory/arena-pods/p", "/cg/pids/arena-pods/p"], "bash", launch),
    ).toEqual({
      command: "bash",
      args: [ENTER_ENGINE, "995", "994", "/cg/memory/arena-pods/p", "/cg/pids/arena-pods/p", "--", "bash", ...launch],
    });
  });

  it("keeps the agent's user in the cgroup when the engine has none of its own", () => {
    expect(engineCommand({ uid: null, gid: null }, ["/cg/p"], "bash", launch).args.slice(1, 3)).toEqual(["-", "-"]);
  });

  it("without a cgroup, lets node's spawn switch the user, or runs as the agent", () => {
    expect(engineCommand({ uid: 995, gid: 994 }, [], "bash", launch)).toEqual({
      command: "bash",
      args: launch,
      uid: 995,
      gid: 994,
    });
    expect(engineCommand({ uid: null, gid: null }, [], "bash", launch)).toEqual({ command: "bash", args: launch });
  });
});
