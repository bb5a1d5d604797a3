import type { PublicBoard } from "../board/public-board";
import type { BudgetLine } from "../budgets/remaining-budget";
import { CURRENT_VERSION, TASK_IDS } from "../protocol";
import type { CreatedSubmission } from "../submissions/create-submission";
import type { SubmissionView } from "../submissions/get-submission";
import { ArenaApi } from "./arena-api";
import { type ClientEnv, clientEnv, requireToken } from "./client-env";
import { type Command, parseCommand, USAGE } from "./commands";
import { packEngineDirectory } from "./engine-directory";
import { ClientError, EXIT } from "./exit-codes";
import { boardLines, budgetLines, submissionLines } from "./format";
import { runLocal } from "./local/run-local";
import type { Output } from "./progress-printer";
import { CLIENT_VERSION } from "./versions";
import { watchEvaluation } from "./watch";

export interface CliIo {
  out: Output;
  err: Output;
  tty: boolean;
  signal?: AbortSignal;
}

const print = (io: CliIo, lines: readonly string[]) => io.out.write(`${lines.join("\n")}\n`);

/** Warns once when the arena is at another protocol than this client was made for. */
async function checkProtocol(api: ArenaApi, io: CliIo): Promise<void> {
  const served = await api.get<{ version?: string }>("/api/protocol").catch(() => null);
  if (served?.version && served.version !== CURRENT_VERSION) {
    io.err.write(
      `note: this client was made for protocol ${CURRENT_VERSION}; the arena is at protocol ${served.version} (download the current one: ${api.baseUrl}/client.py or ${api.baseUrl}/kit.tar.gz)\n`,
    );
  }
}

/** Follows an evaluation to its end and prints its result; ok only when it scored above 0. */
async function watchToEnd(env: ClientEnv, id: string, io: CliIo): Promise<number> {
  const watched = await watchEvaluation({ baseUrl: env.url, submissionId: id, ...io });
  if (env.token) {
    const view = await new ArenaApi(env.url, env.token).get<SubmissionView>(
      `/api/submissions/${encodeURIComponent(id)}`,
    );
    print(io, submissionLines(view, env.url));
    const e = view.evaluation;
    return e?.status === "scored" && (e.specscore ?? 0) > 0 ? EXIT.ok : EXIT.notScored;
  }
  print(io, [
    `ended ${watched.status}${watched.reason ? `: ${watched.reason}` : ""}`,
    `page: ${env.url}/evaluations/${id}`,
  ]);
  return watched.status === "scored" && !watched.reason ? EXIT.ok : EXIT.notScored;
}

async function run(command: Command, env: ClientEnv, io: CliIo): Promise<number> {
  switch (command.verb) {
    case "help":
      print(io, [USAGE]);
      return EXIT.ok;
    case "version":
      print(io, [`speculatorarena ${CLIENT_VERSION} (protocol ${CURRENT_VERSION})`]);
      return EXIT.ok;
    case "submit": {
      const token = requireToken(env);
      const packed = await packEngineDirectory(command.engine);
      const api = new ArenaApi(env.url, token);
      await checkProtocol(api, io);
      io.err.write(
        `engine ${command.engine}: ${packed.files} files, ${packed.unpackedBytes.toLocaleString("en")} bytes unpacked, ${packed.inline.length.toLocaleString("en")} base64 characters\n`,
      );
      const created = await api.post<CreatedSubmission>("/api/submissions", {
        task_id: command.task,
        split: command.split,
        ...(command.speculator ? { speculator: command.speculator } : {}),
        engine: { inline: packed.inline },
        solution: { kind: command.kind, ...(command.method ? { method: command.method } : {}) },
        ...(command.profile ? { profile: command.profile } : {}),
      });
      print(io, [`submitted ${created.id}: ${env.url}/evaluations/${created.id}`]);
      return command.wait ? watchToEnd(env, created.id, io) : EXIT.ok;
    }
    case "status": {
      const view = await new ArenaApi(env.url, requireToken(env)).get<SubmissionView>(
        `/api/submissions/${encodeURIComponent(command.id)}`,
      );
      print(io, command.json ? [JSON.stringify(view, null, 2)] : submissionLines(view, env.url));
      return EXIT.ok;
    }
    case "watch":
      return watchToEnd(env, command.id, io);
    case "budget": {
      const body = await new ArenaApi(env.url, requireToken(env)).get<{ account: string; budget: BudgetLine[] }>(
        "/api/budget",
      );
      print(io, command.json ? [JSON.stringify(body, null, 2)] : budgetLines(body.account, body.budget));
      return EXIT.ok;
    }
    case "board": {
      const api = new ArenaApi(env.url, undefined);
      const boards: PublicBoard[] = [];
      for (const task of command.task ? [command.task] : TASK_IDS) {
        boards.push(await api.get<PublicBoard>(`/api/board?task=${encodeURIComponent(task)}`));
      }
      print(
        io,
        command.json ? [JSON.stringify(boards.length === 1 ? boards[0] : boards, null, 2)] : boards.flatMap(boardLines),
      );
      return EXIT.ok;
    }
    case "local": {
      const result = await runLocal({
        task: command.task,
        engine: command.engine,
        speculator: command.speculator,
        profile: command.profile,
        target: command.target,
        simSpeed: command["sim-speed"],
        json: command.json,
        env,
        ...io,
      });
      return result.exitCode;
    }
  }
}

/** The whole CLI: parses, runs, and turns every failure into one message and its exit code. */
export async function main(
  argv: readonly string[],
  source: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  try {
    return await run(parseCommand(argv), clientEnv(source), io);
  } catch (error) {
    if (error instanceof ClientError) {
      io.err.write(`speculatorarena: ${error.message}\n`);
      return error.exitCode;
    }
    io.err.write(
      `speculatorarena: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.unreachable;
  }
}
