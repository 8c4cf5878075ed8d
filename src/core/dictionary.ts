/** Values numbered in first-seen order, each kept once: the codes of a dictionary-encoded column. */
export class Dictionary<T> {
  readonly values: T[] = [];
  private readonly codes = new Map<T, number>();
  code(value: T): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(value);
      this.codes.set(value, code);
    }
    return code;
  }
}
