/**
 * Run progress: a live bar on a TTY (N/M, rate, ETA, errors so far), plain periodic lines
 * otherwise (CI logs, pipes).
 */
import cliProgress from "cli-progress";

export interface ProgressReporter {
  start(total: number, alreadyDone: number): void;
  tick(errored: boolean): void;
  stop(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  return stream.isTTY ? new BarProgress(stream) : new LineProgress(stream);
}

class BarProgress implements ProgressReporter {
  private readonly bar: cliProgress.SingleBar;
  private errors = 0;

  constructor(stream: NodeJS.WriteStream) {
    this.bar = new cliProgress.SingleBar(
      {
        stream,
        format: "{bar} {value}/{total} trials | {rate}/s | ETA {eta_formatted} | errors {errors}",
        hideCursor: true,
        etaBuffer: 200,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  start(total: number, alreadyDone: number): void {
    this.bar.start(total, alreadyDone, { rate: "0.0", errors: 0 });
  }

  private readonly started = Date.now();
  private done = 0;

  tick(errored: boolean): void {
    if (errored) this.errors++;
    this.done++;
    const rate = (this.done / Math.max((Date.now() - this.started) / 1000, 1e-3)).toFixed(1);
    this.bar.increment(1, { rate, errors: this.errors });
  }

  stop(): void {
    this.bar.stop();
  }
}

class LineProgress implements ProgressReporter {
  private total = 0;
  private done = 0;
  private initial = 0;
  private errors = 0;
  private started = Date.now();
  private lastPrint = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  start(total: number, alreadyDone: number): void {
    this.total = total;
    this.done = alreadyDone;
    this.initial = alreadyDone;
    this.started = Date.now();
    this.stream.write(`progress: ${this.done}/${this.total} trials finished before this run\n`);
  }

  tick(errored: boolean): void {
    this.done++;
    if (errored) this.errors++;
    const now = Date.now();
    if (now - this.lastPrint >= 2_000 || this.done === this.total) {
      this.lastPrint = now;
      this.print(now);
    }
  }

  private print(now: number): void {
    const seconds = Math.max((now - this.started) / 1000, 1e-3);
    const rate = (this.done - this.initial) / seconds;
    const eta = rate > 0 ? Math.round((this.total - this.done) / rate) : 0;
    this.stream.write(
      `progress: ${this.done}/${this.total} trials | ${rate.toFixed(1)}/s | ETA ${eta}s | errors ${this.errors}\n`,
    );
  }

  stop(): void {}
}
