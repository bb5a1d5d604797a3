import type { Profile, TaskId, TaskSpec, WorkloadId } from "./types";
import { TASK_IDS } from "./types";
import { PROTOCOL_V1 } from "./v1";

export * from "./types";
export { PROTOCOL_V1 } from "./v1";

export type Protocol = typeof PROTOCOL_V1;

/** Every published version, oldest first; a change is a new entry, never an edit. */
export const PROTOCOLS: readonly Protocol[] = [PROTOCOL_V1];

export const CURRENT_VERSION = PROTOCOLS[PROTOCOLS.length - 1]!.version;

export function currentProtocol(): Protocol {
  return PROTOCOLS[PROTOCOLS.length - 1]!;
}

export function getProtocol(version: string): Protocol | undefined {
  return PROTOCOLS.find((p) => p.version === version);
}

export function isTaskId(value: string): value is TaskId {
  return (TASK_IDS as readonly string[]).includes(value);
}

export function getTask(taskId: TaskId, protocol: Protocol = currentProtocol()): TaskSpec {
  return protocol.tasks[taskId];
}

export function getProfile(name: string, protocol: Protocol = currentProtocol()): Profile | undefined {
  return protocol.profiles.find((p) => p.name === name);
}

export const FULL_PROFILE = "full";

/** Lanes a workload runs on a task under a profile (a profile may cap them, never raise them). */
export function lanesFor(task: TaskSpec, workload: WorkloadId, profile: Profile): number {
  const cap = profile.lanesCap[workload];
  return cap === undefined ? task.lanes[workload] : Math.min(cap, task.lanes[workload]);
}

/** The most requests any workload keeps in flight: the engine's `MAX_NUM_SEQS`. */
export function maxNumSeqs(task: TaskSpec, profile: Profile): number {
  return Math.max(lanesFor(task, "solo", profile), lanesFor(task, "team", profile), lanesFor(task, "busy", profile));
}

/** The engine's allowed device memory: `GPU_MEMORY_UTILIZATION` of the device plus the slack. */
export function allowedMemoryMib(deviceTotalMib: number, utilization: number, slackMib: number): number {
  return deviceTotalMib * utilization + slackMib;
}

/** A candidate pass scores 0 when it failed more requests than the stock engine by more than 2 or 1% of the pass's requests, whichever is larger. */
export function failedRequestsAllowance(passRequests: number, protocol: Protocol = currentProtocol()): number {
  const { absolute, share } = protocol.gates.failedRequests;
  return Math.max(absolute, share * passRequests);
}
