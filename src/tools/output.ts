/** Text cut to a byte cap, the cut marked (the sandbox's output cap, for tools that run on the host). */
export function capText(text: string, bytes: number): { text: string; cut: boolean } {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= bytes) return { text, cut: false };
  return { text: `${buffer.subarray(0, bytes).toString("utf8")}\n[output cut at ${bytes} bytes]`, cut: true };
}
