"use server";

import { revalidatePath } from "next/cache";
import { ZodError } from "zod";
import { measureReferences } from "@/lib/admin/measure-references";
import { runReference } from "@/lib/admin/run-reference";
import { startCalibration } from "@/lib/admin/start-calibration";
import { voidEvaluation } from "@/lib/admin/void-evaluation";
import { requireAdmin } from "@/lib/auth/admin-session";
import { isAppError } from "@/lib/http/app-error";
import { setRegistrationOpen } from "@/lib/settings/registration";
import { issueToken } from "@/lib/tokens/issue-token";
import { revokeToken } from "@/lib/tokens/revoke-token";

export type ActionState =
  | { ok: true; message: string; token?: string; account?: string; evaluationId?: string }
  | { ok: false; message: string }
  | null;

function failure(error: unknown): ActionState {
  if (error instanceof ZodError) {
    const first = error.issues[0];
    return { ok: false, message: `${first?.path.join(".") || "form"}: ${first?.message ?? "invalid"}` };
  }
  if (isAppError(error)) return { ok: false, message: error.message };
  throw error;
}

const text = (form: FormData, key: string) => String(form.get(key) ?? "").trim();

export async function issueTokenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  try {
    const admin = await requireAdmin();
    const label = text(form, "label");
    const issued = await issueToken(
      { accountName: text(form, "accountName"), kind: text(form, "kind") as "participant", label: label || undefined },
      admin.accountId ?? undefined,
    );
    revalidatePath("/admin");
    return { ok: true, message: `token ${issued.prefix}… issued`, token: issued.token, account: issued.accountName };
  } catch (error) {
    return failure(error);
  }
}

export async function revokeTokenAction(form: FormData): Promise<void> {
  await requireAdmin();
  await revokeToken(text(form, "tokenId"));
  revalidatePath("/admin");
}

export async function setRegistrationAction(form: FormData): Promise<void> {
  await requireAdmin();
  await setRegistrationOpen(text(form, "open") === "true");
  revalidatePath("/admin");
}

export async function runReferenceAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  try {
    await requireAdmin();
    const created = await runReference({
      taskId: text(form, "taskId"),
      referenceKey: text(form, "referenceKey"),
      split: text(form, "split") as "test",
      profile: text(form, "profile") || "full",
    });
    revalidatePath("/admin");
    return { ok: true, message: `${created.referenceKey} queued`, evaluationId: created.evaluationId };
  } catch (error) {
    return failure(error);
  }
}

export async function measureReferencesAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  try {
    await requireAdmin();
    const profile = text(form, "profile");
    const measured = await measureReferences({ profile, split: text(form, "split") as "test" });
    revalidatePath("/admin");
    revalidatePath("/");
    const skipped =
      measured.skipped.length > 0
        ? `; not on this runtime: ${measured.skipped.map((r) => `${r.taskId} ${r.referenceKey}`).join(", ")}`
        : "";
    return {
      ok: true,
      message: `${measured.queued.length} reference evaluations queued under ${profile}: ${measured.queued.map((r) => `${r.taskId} ${r.referenceKey}`).join(", ")}${skipped}`,
    };
  } catch (error) {
    return failure(error);
  }
}

export async function voidEvaluationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  try {
    await requireAdmin();
    const outcome = await voidEvaluation({ evaluationId: text(form, "evaluationId"), reason: text(form, "reason") });
    revalidatePath("/admin");
    return {
      ok: true,
      message: `evaluation ${outcome.evaluationId} is void${outcome.refunded ? " and its charge refunded" : " (it had no charge to refund)"}`,
      evaluationId: outcome.evaluationId,
    };
  } catch (error) {
    return failure(error);
  }
}

export async function startCalibrationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  try {
    const admin = await requireAdmin();
    const started = await startCalibration(
      {
        taskId: text(form, "taskId"),
        profile: text(form, "profile"),
        aa: text(form, "aa"),
        split: text(form, "split") as "test",
      },
      { startedById: admin.accountId ?? undefined },
    );
    revalidatePath("/admin");
    const skipped =
      started.skipped.length > 0
        ? `; not on this runtime: ${started.skipped.map((r) => `${r.referenceKey} (${r.why})`).join(", ")}`
        : "";
    return {
      ok: true,
      message: `calibration ${started.calibrationId} started: ${started.queued} evaluations queued${skipped}`,
    };
  } catch (error) {
    return failure(error);
  }
}
