import type { ResultRecord } from "../gates";
import type { CalibrationPod } from "./pod-outcome";

export interface AuditSide {
  p_value: number;
  consistent: boolean;
  replies: number;
  tokens: number;
}

export interface SamplingAuditSummary {
  alpha: number | null;
  /** Every audited side of the A/A runs: both are the stock engine, so each inconsistent one is a false alarm. */
  aa: { audits: number; false_alarms: number; p_values: number[] };
  references: { key: string; candidate: AuditSide | null; stock: AuditSide | null }[];
  /** Sampled replies the likelihood check scored per engine and run, against the profile's count. */
  likelihood_replies: { asked: number; min: number | null; max: number | null };
}

type Audit = NonNullable<NonNullable<ResultRecord["sampling_audit"]>["candidate"]>;
const side = (a: Audit | null | undefined): AuditSide | null =>
  a ? { p_value: a.p_value, consistent: a.consistent, replies: a.replies, tokens: a.tokens } : null;

/**
 * The exact sampling audit over the calibration's runs (shown, not gated under protocol v1): its false alarms on the
 * A/A runs, where both engines are the stock engine, and each reference's verdict; and how many sampled replies the
 * likelihood check scored beside the profile's count.
 */
export function samplingAuditSummary(
  aa: readonly CalibrationPod[],
  references: readonly CalibrationPod[],
  likelihoodReplies: number,
): SamplingAuditSummary {
  let alpha: number | null = null;
  const pValues: number[] = [];
  let falseAlarms = 0;
  for (const p of aa) {
    for (const a of [p.record?.sampling_audit?.candidate, p.record?.sampling_audit?.stock]) {
      if (!a) continue;
      alpha = a.alpha;
      pValues.push(a.p_value);
      if (!a.consistent) falseAlarms++;
    }
  }
  const scored: number[] = [];
  for (const p of [...aa, ...references]) {
    const answers = p.record?.answers.likelihood;
    if (!answers) continue;
    scored.push(
      answers.candidate.requests - answers.candidate.unanswered,
      answers.stock.requests - answers.stock.unanswered,
    );
  }
  return {
    alpha:
      alpha ??
      references.find((p) => p.record?.sampling_audit?.candidate)?.record?.sampling_audit?.candidate?.alpha ??
      null,
    aa: { audits: pValues.length, false_alarms: falseAlarms, p_values: pValues },
    references: references.map((p) => ({
      key: p.key,
      candidate: side(p.record?.sampling_audit?.candidate),
      stock: side(p.record?.sampling_audit?.stock),
    })),
    likelihood_replies: {
      asked: likelihoodReplies,
      min: scored.length ? Math.min(...scored) : null,
      max: scored.length ? Math.max(...scored) : null,
    },
  };
}
