import type { Metadata } from "next";
import { AttentionLayout } from "@/components/board/attention-layout";
import { BoardTable } from "@/components/board/board-table";
import { LatestList } from "@/components/board/latest-list";
import { LiveRefresh } from "@/components/board/live-refresh";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { Section } from "@/components/ui/section";
import { activeEvaluations, profileDurations, recentEvaluations } from "@/lib/board/cached-reads";
import { listBoard } from "@/lib/board/list-board";
import { profileTimings, timingWords } from "@/lib/board/profile-timing";
import { env } from "@/lib/env";
import { contactLink } from "@/lib/kit/operators-contact";
import { currentProtocol, TASK_IDS } from "@/lib/protocol";
import { isRegistrationOpen } from "@/lib/settings/registration";

export const dynamic = "force-dynamic";
/** The home page shows each board's leaders; the task page has the rest, by pages. */
const HOME_BOARD_ROWS = 10;
export const metadata: Metadata = { title: { absolute: "SpeculatorArena" } };

export default async function HomePage() {
  const protocol = currentProtocol();
  const [boards, latest, tests, registrationOpen, active, durations] = await Promise.all([
    Promise.all(TASK_IDS.map((id) => listBoard(id))),
    recentEvaluations({ limit: 8, profiles: "full" }),
    recentEvaluations({ limit: 5, profiles: "test" }),
    isRegistrationOpen(),
    activeEvaluations(),
    profileDurations(),
  ]);
  const timings = new Map(profileTimings(protocol.profiles, durations).map((t) => [t.name, timingWords(t)]));
  const url = env().ARENA_PUBLIC_URL;
  const contact = contactLink(env().OPERATORS_CONTACT);
  return (
    <div className="space-y-12">
      <LiveRefresh live={active > 0} />
      <section aria-labelledby="leaderboard">
        <h1 id="leaderboard" className="text-2xl font-semibold">
          Leaderboard
        </h1>
        <p className="mt-1 max-w-prose text-slate-700">
          Each participant&apos;s last scored evaluation on the hidden sessions; the stock engine scores 1.
        </p>
        {boards.map((board) => {
          const task = protocol.tasks[board.taskId as keyof typeof protocol.tasks];
          return (
            <div key={board.taskId} className="mt-8" data-testid={`board-${task.id}`}>
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <h2 className="text-xl font-semibold">{task.name}</h2>
                <a href={`/tasks/${task.id}`}>
                  {board.participants.length > HOME_BOARD_ROWS
                    ? `all ${board.participants.length.toLocaleString("en")} participants →`
                    : "full board →"}
                </a>
              </div>
              <div className="mt-2">
                <BoardTable
                  caption={`${task.name} leaderboard`}
                  participants={board.participants.slice(0, HOME_BOARD_ROWS)}
                  references={board.references}
                />
              </div>
            </div>
          );
        })}
      </section>

      <Section id="tasks" title="Two tasks">
        <p className="mt-1 max-w-prose text-slate-700">
          One target on one B200, in BF16 and unchanged; three workloads of real multi-turn chat and agent sessions.
        </p>
        <div className="mt-4 grid gap-4 sm:grid-cols-2">
          {Object.values(protocol.tasks).map((task) => (
            <article key={task.id} className="rounded border border-slate-200 p-4">
              <h3 className="font-semibold">
                <a href={`/tasks/${task.id}`}>{task.name}</a>
              </h3>
              <p className="mt-1 text-sm text-slate-700">
                {task.target.repository} · {task.gpu} · {task.maxModelLen.toLocaleString("en")} tokens · lanes{" "}
                {task.lanes.solo}/{task.lanes.team}/{task.lanes.busy}
              </p>
              <div className="mt-3">
                <AttentionLayout task={task} />
              </div>
            </article>
          ))}
        </div>
      </Section>

      <Section id="judged" title="How a speculator is judged">
        <p className="mt-1 max-w-prose text-slate-700">
          Timed beside the stock engine, then six checks that nothing it serves has changed, then one score.
        </p>
        <div className="mt-4 grid gap-4 md:grid-cols-3">
          <article className="rounded border border-slate-200 p-4">
            <h3 className="font-semibold">Paired, closed loop</h3>
            <p className="mt-1 text-sm text-slate-700">
              In one pod, the candidate and the stock engine play the same hidden sessions in turn: one lane (solo), a
              few (team), and enough to fill the KV cache (busy). The model&apos;s own replies go back into each
              session&apos;s history, and replies end where the model ends them.
            </p>
          </article>
          <article className="rounded border border-slate-200 p-4">
            <h3 className="font-semibold">
              <a href="/gates">Lossless</a>
            </h3>
            <p className="mt-1 text-sm text-slate-700">
              The target&apos;s log-probabilities on fixed texts, how likely sampled replies are, how often they take
              the target&apos;s first choice, greedy agreement, reply lengths, and device memory: each within limits
              calibrated on honest speculators and red-team attacks.
            </p>
          </article>
          <article className="rounded border border-slate-200 p-4">
            <h3 className="font-semibold">SpecScore</h3>
            <p className="mt-1 text-sm text-slate-700">
              The geometric mean of the median solo, team and busy speedups over three passes each; 0 if a gate fails.
              The stock engine scores 1, and its error against itself is about 1%.
            </p>
          </article>
        </div>
      </Section>

      <Section id="latest" title="Latest evaluations" aside={<a href="/evaluations">All →</a>}>
        <p className="mt-1 max-w-prose text-sm text-slate-700">
          Under the protocol, newest change first: each at the time it was queued, started or finished.
        </p>
        <div className="mt-2">
          <LatestList
            entries={latest}
            empty={
              <>
                Nothing has been submitted yet. <a href="/submit">Submit the first speculator</a>.
              </>
            }
          />
        </div>
      </Section>

      <Section id="latest-tests" title="Test-profile runs" aside={<a href="/evaluations#test-profiles">All →</a>}>
        <p className="mt-1 max-w-prose text-sm text-slate-700">
          Shortened runs for demos and automated tests, labelled with their profile and never ranked.
        </p>
        <div className="mt-2">
          <LatestList entries={tests} empty="No run under a test profile yet." />
        </div>
      </Section>

      <Section
        id="enter"
        title="Enter the arena"
        aside={
          <span>
            <a href={registrationOpen ? "/register" : "/guide#token"}>Get a token →</a> · <a href="/guide">guide →</a> ·{" "}
            <a href="/submit">submit in the browser →</a>
          </span>
        }
      >
        <p className="mt-1 max-w-prose text-sm text-slate-700" data-testid="token-help">
          {registrationOpen ? (
            <>
              Registration is open: <a href="/register">register</a> for a token.
            </>
          ) : (
            <>Accounts are by invitation: the operators give each participant a token. </>
          )}
          {contact ? (
            <>
              {registrationOpen ? " Or ask" : "Ask"} the operators at{" "}
              {contact.href ? <a href={contact.href}>{contact.text}</a> : <span>{contact.text}</span>}.
            </>
          ) : null}{" "}
          The client is in the <a href="/kit.tar.gz">kit</a> (or <a href="/client.py">client.py</a> alone; Python 3.9+,
          nothing to install).
        </p>
        <ScrollRegion label="Submitting with the Python client" scroll="both" className="mt-3 rounded bg-slate-900">
          <pre className="p-4 text-sm text-slate-100">
            <code>{`# with the token the operators gave you
export SPECULATORARENA_URL=${url}
export SPECULATORARENA_TOKEN=spa_...
curl -sL $SPECULATORARENA_URL/kit.tar.gz | tar xz && cd speculatorarena-kit
# a first look on the public sessions: the smoke profile, ${timings.get("smoke") ?? "a few minutes"}
python3 -m speculatorarena.client submit --task qwen3-8b --split dev --profile smoke \\
  --engine my-engine/ --speculator org/repo@<commit> \\
  --method "EAGLE-3 k=4" --kind eagle3 --wait
# the ranked run: the hidden sessions under the full protocol, ${timings.get("full") ?? "about an hour"}
python3 -m speculatorarena.client submit --task qwen3-8b --split test \\
  --engine my-engine/ --speculator org/repo@<commit> \\
  --method "EAGLE-3 k=4" --kind eagle3`}</code>
          </pre>
        </ScrollRegion>
      </Section>
    </div>
  );
}
