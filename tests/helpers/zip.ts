/**
 * A minimal zip reader for tests (Inspect AI `.eval` logs are zips of JSON files): the central
 * directory, then each entry stored (method 0) or deflated (method 8). No zip64, no encryption:
 * enough for the small logs in ../shared/interop, without a zip dependency.
 */
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Every file of the zip at `path`, by name, as bytes. */
export function readZip(path: string): Map<string, Buffer> {
  const zip = readFileSync(path);
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${path}: not a zip file (no end of central directory)`);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files = new Map<string, Buffer>();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error(`${path}: bad central directory entry ${n}`);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    if (zip.readUInt32LE(local) !== LOCAL) throw new Error(`${path}: bad local header of ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    if (method === 0) files.set(name, Buffer.from(data));
    else if (method === 8) files.set(name, inflateRawSync(data));
    else throw new Error(`${path}: ${name} uses compression method ${method}`);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}
