import { DataTable, type TableSpec } from "@/components/ui/data-table";
import { type GatePowerCalibration, POWER_CHECK_KEYS } from "@/lib/protocol/calibration-schema";
import { percent } from "./calibration-format";

type Threshold = GatePowerCalibration["thresholds"][number];
type Check = (typeof POWER_CHECK_KEYS)[number];
type Side = Pick<Threshold, "family" | "side" | "honest">;

const CHECK_NAMES: Record<Check, string> = {
  likelihood: "Sampled likelihood",
  argmax: "First-choice share",
  audit: "Sampling audit (shown, not gated)",
  fidelity: "Target fidelity",
  greedy: "Greedy agreement",
  gates: "Any gate (the evaluation fails)",
};

const FAMILY_LABELS: Record<Threshold["family"], string> = {
  temperature: "temperature × s",
  "top-k": "top_k K",
  quantization: "perturbation × s",
};

const sideName = (s: Side) => `${FAMILY_LABELS[s.family]} ${s.side === "below" ? "<" : ">"} ${s.honest}`;
const sameSide = (a: Side, b: Side) => a.family === b.family && a.side === b.side;

interface PowerRow {
  check: Check;
  cells: string[];
  falseAlarm: string;
}

/** A check's threshold on one side, and the rates it was read from, weakest strength first. */
function cellText(power: GatePowerCalibration, t: Threshold | undefined): string {
  if (!t) return "not measured";
  const rates = t.strengths
    .map((s) => {
      const rate = power.points.find((p) => p.family === t.family && p.strength === s)?.rates[t.check];
      return `${s}: ${rate === undefined ? "–" : percent(rate, 0)}`;
    })
    .join(", ");
  const head = t.smallest === null ? "none caught" : t.at_weakest ? `≤ ${t.smallest}` : String(t.smallest);
  return `${head} (${rates})`;
}

function powerTable(sides: readonly Side[]): TableSpec<PowerRow> {
  return {
    minWidth: "min-w-[48rem]",
    pad: "py-1.5",
    rowClassName: "border-b border-slate-100 align-top",
    rowKey: (r) => r.check,
    rowAttributes: (r) => ({ "data-check": r.check }),
    columns: [
      { header: "Check", rowHeader: "font-medium", cell: (r) => CHECK_NAMES[r.check] },
      ...sides.map((s, i) => ({
        header: sideName(s),
        key: `${s.family}-${s.side}`,
        className: "tabular-nums",
        cell: (r: PowerRow) => r.cells[i],
      })),
      { header: "False alarms (stock as candidate)", className: "tabular-nums", cell: (r) => r.falseAlarm },
    ],
  };
}

/** Over independent honest pools where they were measured (the mean ± 1.96 standard errors), else the run's one pool. */
function falseAlarmText(power: GatePowerCalibration, check: Check): string {
  const pooled = power.false_alarms?.rates[check];
  if (pooled)
    return `${percent(pooled.mean, 1)} ± ${percent(1.96 * pooled.se, 1)} (${power.false_alarms!.seeds.length} pools)`;
  if (!power.honest) return "not measured";
  return power.honest.rates[check] === undefined ? "–" : percent(power.honest.rates[check], 1);
}

const listed = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b).join(", ");

/** How the rates were estimated, in words: the sizes drawn, the pools drawn from, and how. */
function methodText(p: GatePowerCalibration): string {
  const measured = [...p.points, ...(p.honest ? [p.honest] : [])];
  const replies = listed(measured.map((x) => x.pool_replies));
  const texts = listed(measured.filter((x) => x.pool_texts > 0).map((x) => x.pool_texts));
  const probes = listed(measured.filter((x) => x.pool_probes > 0).map((x) => x.pool_probes));
  const boot = measured.some((x) => x.resampling === "bootstrap");
  return [
    `At the ${p.profile} profile's sizes: ${p.sizes.replies} sampled replies per engine, ${p.sizes.texts} fixed texts, ${p.sizes.probes} greedy probes.`,
    `Each rate is the share of ${p.resamples} draws of those sizes in which the check fails, judged with the judge's own statistics and limits, from a pool of ${replies} replies per engine (max_tokens ${p.max_tokens}; the stock engine's own pool of ${p.stock_pool.replies} on the other side)${texts ? `, ${texts} fixed texts and ${probes} probes where the attack reaches the target's forward pass` : ""}:`,
    boot
      ? "drawn with replacement (a bootstrap: a pool smaller than a draw, where a reply drawn twice counts twice and the audit's false alarms run high)."
      : "each draw a subset of the pool, without replacement (an iid sample of the engine).",
    `Caught: failed in at least ${percent(p.target, 0)} of draws, as is every stronger strength of the sweep; "≤" where the sweep's weakest is caught already.`,
    `Simulated engines (SIM_SPEED ${p.sim_speed}), seed ${p.seed}.`,
    p.false_alarms
      ? `False alarms: the mean of the rates of ${p.false_alarms.seeds.length} independent honest pools (the stock engine as its own candidate, seeds ${p.false_alarms.seeds.join(", ")}), as the draws of one pool share its replies; the sampling audit on each whole pool was below its level in ${p.false_alarms.audit_p.filter((x) => x !== null && x < p.false_alarms!.audit_alpha).length} of them.`
      : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** The gates' power against the simulated attacks: per check and attack family, the weakest strength caught 95% of the time. */
export function GatePowerEvidence({ power }: { power: GatePowerCalibration }) {
  const sides = power.thresholds.filter((t, i) => power.thresholds.findIndex((x) => sameSide(x, t)) === i);
  const rows: PowerRow[] = POWER_CHECK_KEYS.map((check) => ({
    check,
    cells: sides.map((s) =>
      cellText(
        power,
        power.thresholds.find((t) => sameSide(t, s) && t.check === check),
      ),
    ),
    falseAlarm: falseAlarmText(power, check),
  }));
  return (
    <div data-gate-power={power.profile} className="mt-3">
      <h4 className="text-sm font-medium">The gates&apos; power against the simulated attacks</h4>
      <DataTable
        className="mt-1"
        spec={powerTable(sides)}
        rows={rows}
        caption="Each check against each simulated attack: the weakest strength it catches, with its detection rate at each strength of the sweep"
      />
      <p className="mt-1 text-sm text-slate-700">{methodText(power)}</p>
    </div>
  );
}
