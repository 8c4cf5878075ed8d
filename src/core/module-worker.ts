/**
 * A worker thread running a module beside the caller's: `name`.js when built, `name`.ts when run
 * from source (tsx). Module hooks do not reach workers in Node 20, so from source the worker
 * first registers tsx's loader, then imports the .ts module.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

export function startModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = callerUrl.endsWith(".ts");
  const url = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, callerUrl);
  if (!fromSource) return new Worker(url, options);
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}
