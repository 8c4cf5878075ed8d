import { arch } from "node:os";

/**
 * The sandbox's seccomp filter, as the classic-BPF program bubblewrap's `--seccomp FD` loads: the
 * system calls sandboxed code has no use for and that widen the kernel's attack surface (kernel
 * keyrings, BPF, userfaultfd, perf events, ptrace, mounts and namespaces, modules, kexec, swap,
 * reboot, io_uring) fail with EPERM; everything else is allowed. System calls of another ABI than
 * the native one (32-bit calls on x86-64, x32) fail too, so the list cannot be bypassed through them.
 */

const EPERM = 1;
const SECCOMP_RET_ALLOW = 0x7fff_0000;
const SECCOMP_RET_ERRNO = 0x0005_0000;
/** Offsets in `struct seccomp_data`. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** BPF opcodes: load word (absolute), jump if equal / if any bits set (constant), return. */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;
const X32_SYSCALL_BIT = 0x4000_0000;

interface ArchTable {
  auditArch: number;
  /** Refused calls by name, with their number on this architecture. */
  refused: Record<string, number>;
  /** Whether the x32 ABI shares this audit arch (x86-64), to be refused by its bit. */
  x32: boolean;
}

/** Shared by the asm-generic table (arm64) and x86-64 from 5.1 on. */
const NEW_MOUNT_API = { open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433 };

const TABLES: Record<string, ArchTable> = {
  x64: {
    auditArch: 0xc000_003e,
    x32: true,
    refused: {
      ptrace: 101,
      acct: 163,
      mount: 165,
      umount2: 166,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      pivot_root: 155,
      init_module: 175,
      delete_module: 176,
      kexec_load: 246,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      unshare: 272,
      perf_event_open: 298,
      name_to_handle_at: 303,
      open_by_handle_at: 304,
      setns: 308,
      finit_module: 313,
      kexec_file_load: 320,
      bpf: 321,
      userfaultfd: 323,
      io_uring_setup: 425,
      ...NEW_MOUNT_API,
    },
  },
  arm64: {
    auditArch: 0xc000_00b7,
    x32: false,
    refused: {
      umount2: 39,
      mount: 40,
      pivot_root: 41,
      acct: 89,
      unshare: 97,
      kexec_load: 104,
      init_module: 105,
      delete_module: 106,
      ptrace: 117,
      reboot: 142,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      swapon: 224,
      swapoff: 225,
      perf_event_open: 241,
      name_to_handle_at: 264,
      open_by_handle_at: 265,
      setns: 268,
      finit_module: 273,
      bpf: 280,
      userfaultfd: 282,
      kexec_file_load: 294,
      io_uring_setup: 425,
      ...NEW_MOUNT_API,
    },
  },
};

/** The names of the refused system calls (for the docs and tests). */
export function refusedSyscalls(architecture = arch()): string[] {
  return Object.keys(TABLES[architecture]?.refused ?? {});
}

let cached: Buffer | undefined;

/** The compiled filter for this machine's architecture; on an unknown one, a filter that allows everything. */
export function seccompFilter(architecture = arch()): Buffer {
  if (architecture === arch() && cached !== undefined) return cached;
  const table = TABLES[architecture];
  const program = table === undefined ? [instruction(RET_K, 0, 0, SECCOMP_RET_ALLOW)] : programFor(table);
  const filter = Buffer.concat(program);
  if (architecture === arch()) cached = filter;
  return filter;
}

function programFor(table: ArchTable): Buffer[] {
  const deny = SECCOMP_RET_ERRNO | EPERM;
  const numbers = Object.values(table.refused);
  const program = [
    instruction(LD_W_ABS, 0, 0, ARCH_OFFSET),
    // Native arch: skip the deny that follows.
    instruction(JEQ_K, 1, 0, table.auditArch),
    instruction(RET_K, 0, 0, deny),
    instruction(LD_W_ABS, 0, 0, NR_OFFSET),
  ];
  if (table.x32) program.push(instruction(JSET_K, numbers.length + 1, 0, X32_SYSCALL_BIT));
  // Each match jumps over the remaining comparisons and the allow, to the deny at the end.
  numbers.forEach((number, index) => {
    program.push(instruction(JEQ_K, numbers.length - index, 0, number));
  });
  program.push(instruction(RET_K, 0, 0, SECCOMP_RET_ALLOW), instruction(RET_K, 0, 0, deny));
  return program;
}

/** One `struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k, in the machine's byte order (little-endian on both). */
function instruction(code: number, jumpTrue: number, jumpFalse: number, k: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt16LE(code, 0);
  bytes.writeUInt8(jumpTrue, 2);
  bytes.writeUInt8(jumpFalse, 3);
  bytes.writeUInt32LE(k >>> 0, 4);
  return bytes;
}
