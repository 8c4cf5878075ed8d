/**
 * A zip read entry by entry, on demand (Inspect AI's `.eval` logs): the central directory is
 * read first, and an entry is inflated only when asked for, in chunks through fflate's streaming
 * `Inflate`, counting what comes out. An entry that inflates past the per-entry cap, or past
 * what is left of the total cap, is stopped there and refused by name: a small file that
 * inflates to gigabytes (a zip bomb) costs at most the cap in memory, whatever sizes its headers
 * claim. Entries never asked for are never inflated.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { Inflate } from "fflate";
import { requireRegularFile } from "../core/guarded-read.js";

/** Caps on inflated bytes; docs/INTEROP.md gives the defaults and the import options that set them. */
export interface ZipLimits {
  /** Largest inflated entry, in bytes. */
  entryBytes: number;
  /** Largest sum of the inflated entries read from one zip, in bytes. */
  totalBytes: number;
}

const MIB = 1024 * 1024;
/** Below V8's longest string (about 512 MiB), so an entry within the cap can be decoded as text. */
export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = { entryBytes: 256 * MIB, totalBytes: 1024 * MIB };

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_EXTRA = 0x0001;
/** Compressed bytes pushed at a time: deflate inflates at most about 1,032 to 1, so one push yields at most about 16 MiB. */
const CHUNK = 16 * 1024;

/** A zip that cannot be read, or an entry over a cap; `entry` names the entry when there is one. */
export class ZipError extends Error {
  constructor(
    message: string,
    readonly entry: string | null,
    /** False when the zip is whole but not acceptable (two entries of one name): no truncation to look for. */
    readonly damaged = true,
  ) {
    super(message);
  }
}

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

export class ZipReader {
  private inflated = 0;

  private constructor(
    private readonly fd: number,
    private readonly size: number,
    private readonly entries: Map<string, Entry>,
    private readonly limits: ZipLimits,
  ) {}

  /** Opens the zip and reads its central directory; throws ZipError when it has none. */
  static open(path: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipReader {
    requireRegularFile(path); // a FIFO would block the open
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      return new ZipReader(fd, size, centralDirectory(fd, size), limits);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes, inflated within the caps. */
  read(name: string): Uint8Array {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new ZipError(`no entry '${name}' in the zip`, name);
    const start = this.dataStart(entry);
    if (start + entry.compressedSize > this.size)
      throw new ZipError("this entry is cut off (the file ends inside it)", name);
    if (entry.method === 0) {
      this.count(entry.name, entry.compressedSize);
      return readAt(this.fd, start, entry.compressedSize);
    }
    if (entry.method !== 8) throw new ZipError(`compression method ${entry.method} is not supported`, name);
    return this.inflate(entry, start);
  }

  /** The entry as UTF-8 text. */
  text(name: string): string {
    return new TextDecoder().decode(this.read(name));
  }

  close(): void {
    closeSync(this.fd);
  }

  private inflate(entry: Entry, start: number): Uint8Array {
    const chunks: Uint8Array[] = [];
    let entryBytes = 0;
    const inflater = new Inflate((chunk) => {
      entryBytes += chunk.length;
      this.count(entry.name, chunk.length, entryBytes);
      chunks.push(chunk);
    });
    try {
      if (entry.compressedSize === 0) inflater.push(new Uint8Array(0), true);
      for (let at = 0; at < entry.compressedSize; at += CHUNK) {
        const length = Math.min(CHUNK, entry.compressedSize - at);
        inflater.push(readAt(this.fd, start + at, length), at + length >= entry.compressedSize);
      }
    } catch (error) {
      if (error instanceof ZipError) throw error;
      throw new ZipError(`this entry's deflated data is corrupt (${(error as Error).message})`, entry.name);
    }
    return concat(chunks, entryBytes);
  }

  /** Adds inflated bytes to the entry's and the zip's counts; refuses the entry past a cap. */
  private count(name: string, added: number, entryBytes = added): void {
    this.inflated += added;
    if (entryBytes > this.limits.entryBytes) {
      throw new ZipError(
        `this entry inflates to more than ${formatBytes(this.limits.entryBytes)}, the cap per entry ` +
          "(a zip bomb, or a larger log than the cap allows: see --max-entry-mb)",
        name,
      );
    }
    if (this.inflated > this.limits.totalBytes) {
      throw new ZipError(
        `the zip's entries inflate to more than ${formatBytes(this.limits.totalBytes)} in all, the cap per file ` +
          "(a zip bomb, or a larger log than the cap allows: see --max-inflated-mb)",
        name,
      );
    }
  }

  private dataStart(entry: Entry): number {
    if (entry.localOffset + 30 > this.size) throw new ZipError("this entry is cut off (no local header)", entry.name);
    const header = readAt(this.fd, entry.localOffset, 30);
    const view = new DataView(header.buffer, header.byteOffset, 30);
    if (view.getUint32(0, true) !== LOCAL) throw new ZipError("this entry's local header is corrupt", entry.name);
    return entry.localOffset + 30 + view.getUint16(26, true) + view.getUint16(28, true);
  }
}

/**
 * Whether deflated data inflates without error, its output counted and dropped; data still
 * inflating past `capBytes` is taken as whole (not judged further).
 */
export function inflatesCleanly(data: Uint8Array, capBytes: number): boolean {
  let inflated = 0;
  const stop = new Error("cap reached");
  const inflater = new Inflate((chunk) => {
    inflated += chunk.length;
    if (inflated > capBytes) throw stop;
  });
  try {
    for (let at = 0; at < data.length || at === 0; at += CHUNK) {
      inflater.push(data.subarray(at, at + CHUNK), at + CHUNK >= data.length);
    }
    return true;
  } catch (error) {
    return error === stop;
  }
}

function formatBytes(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

function readAt(fd: number, position: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, bytes, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read === length ? bytes : bytes.subarray(0, read);
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The entries listed in the central directory (zip64 sizes and offsets included). */
function centralDirectory(fd: number, size: number): Map<string, Entry> {
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = readAt(fd, size - tailLength, tailLength);
  const tailView = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tailView.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipError("no end of central directory (the zip's end is missing)", null);
  let count = tailView.getUint16(eocd + 10, true);
  let directorySize = tailView.getUint32(eocd + 12, true);
  let directoryOffset = tailView.getUint32(eocd + 16, true);
  if (eocd >= 20 && tailView.getUint32(eocd - 20, true) === ZIP64_LOCATOR) {
    const record = readAt(fd, Number(tailView.getBigUint64(eocd - 20 + 8, true)), 56);
    const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
    if (record.length < 56 || view.getUint32(0, true) !== ZIP64_EOCD)
      throw new ZipError("the zip64 end of central directory is corrupt", null);
    count = Number(view.getBigUint64(32, true));
    directorySize = Number(view.getBigUint64(40, true));
    directoryOffset = Number(view.getBigUint64(48, true));
  }
  if (directoryOffset + directorySize > size) throw new ZipError("the central directory is cut off", null);
  const directory = readAt(fd, directoryOffset, directorySize);
  return parseEntries(directory, count);
}

function parseEntries(directory: Uint8Array, count: number): Map<string, Entry> {
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength);
  const entries = new Map<string, Entry>();
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > directory.length || view.getUint32(at, true) !== CENTRAL)
      throw new ZipError(`central directory entry ${n + 1} is corrupt`, null);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const name = new TextDecoder().decode(directory.subarray(at + 46, at + 46 + nameLength));
    const entry: Entry = {
      name,
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
    };
    applyZip64(entry, view, {
      start: at + 46 + nameLength,
      length: extraLength,
      hasSize: view.getUint32(at + 24, true) === 0xffffffff,
    });
    if (entries.has(name))
      throw new ZipError("the zip holds two entries of this name; which one is the log's is ambiguous", name, false);
    entries.set(name, entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Replaces the 32-bit fields marked 0xFFFFFFFF with the zip64 extra field's 64-bit values, in its order. */
function applyZip64(
  entry: Entry,
  view: DataView,
  /** The extra fields' offset and length, and whether the zip64 field holds the uncompressed size first. */
  extra: { start: number; length: number; hasSize: boolean },
): void {
  const { start: extraStart, length: extraLength, hasSize } = extra;
  if (entry.compressedSize !== 0xffffffff && entry.localOffset !== 0xffffffff) return;
  for (let at = extraStart; at + 4 <= extraStart + extraLength; ) {
    const id = view.getUint16(at, true);
    const length = view.getUint16(at + 2, true);
    if (id === ZIP64_EXTRA) {
      let field = at + 4;
      const next = () => {
        const value = Number(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (hasSize) next(); // the uncompressed size, not trusted: the inflated bytes are counted
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
      return;
    }
    at += 4 + length;
  }
  throw new ZipError("a zip64 size or offset without its zip64 extra field", entry.name);
}
