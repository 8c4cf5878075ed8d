/**
 * Which workers of a run are still at work. A running worker renews its heartbeat every third
 * of its lease, on the database clock: one silent for longer than its lease was killed (or is
 * stalled past the point where its trials are claimable again). A worker on this host is at work
 * only while its process is alive too, so a killed one is known dead at once.
 */
import { hostname } from "node:os";
import { processAlive } from "../../core/stale.js";
import { DEFAULT_LEASE_MS } from "./leased-source.js";
import { openStore } from "../store/open.js";
import type { WorkerRecord } from "../store/types.js";

/** Recorded running, but silent for longer than its lease. */
export function heartbeatLapsed(worker: WorkerRecord, now: number): boolean {
  return worker.state === "running" && now - worker.heartbeatAt > (worker.leaseMs ?? DEFAULT_LEASE_MS);
}

/**
 * The run's workers on this host that are still at work: recorded running, a heartbeat within
 * their lease, and their process alive. Empty when the store holds no such run.
 */
export async function workersAtWorkHere(storeTarget: string, runId: string): Promise<WorkerRecord[]> {
  const store = await openStore(storeTarget);
  try {
    const workers = await store.listWorkers(runId);
    if (workers.length === 0) return [];
    const { now } = await store.leaseSummary(runId);
    const here = hostname();
    return workers.filter(
      (w) => w.state === "running" && !heartbeatLapsed(w, now) && w.host === here && processAlive(w.pid),
    );
  } finally {
    await store.close();
  }
}

/** What `workersAtWorkHere` finds, in words for the lock's refusal; undefined when nothing is at work. */
export async function describeWorkersAtWork(storeTarget: string, runId: string): Promise<string | undefined> {
  const workers = await workersAtWorkHere(storeTarget, runId);
  if (workers.length === 0) return undefined;
  const pids = workers.map((w) => w.pid).join(", ");
  const who = workers.length === 1 ? "a worker of it is" : `${workers.length} workers of it are`;
  return `${who} still at work here (pid ${pids}, run ${runId})`;
}
