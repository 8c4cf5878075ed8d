import { ParallaxError } from "./errors.js";

/** A named set of plugins (providers, datasets, scaffolds, scorers...), one file each. */
export class Registry<T> {
  private readonly entries = new Map<string, T>();

  constructor(readonly kind: string) {}

  register(name: string, entry: T): void {
    if (this.entries.has(name)) throw new Error(`${this.kind} '${name}' is registered twice`);
    this.entries.set(name, entry);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): T {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      throw new ParallaxError(`unknown ${this.kind} '${name}'; known: ${this.names().join(", ") || "(none)"}`, 2);
    }
    return entry;
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** How many entries are registered (a memo of a derived list can tell it is stale). */
  get size(): number {
    return this.entries.size;
  }
}
