/**
 * Bindings for `clawhive:host/schedule@0.1.1` (wit/host/schedule.wit), lowered by hand to the
 * canonical ABI as host/memory.ts does. `schedule-spec` flattens to more than 16 values, so
 * `create` passes it in memory: a pointer to the record, then the return area.
 */
import { storeString, takeStringAt } from "../abi";
import { loadOptionU32, storeOptionString, storeOptionU32, takeOptionStringAt } from "../option";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

@external("clawhive:host/schedule@0.1.1", "list")
declare function listImport(ret: usize): void;

@external("clawhive:host/schedule@0.1.1", "create")
declare function createImport(spec: usize, ret: usize): void;

@external("clawhive:host/schedule@0.1.1", "cancel")
declare function cancelImport(ip: usize, il: usize, ret: usize): void;

/** `schedule-spec` (size 72, align 4). Null fields and a negative `maxRuns` are none. */
export class ScheduleSpec {
  agent: string = "";
  task: string = "";
  at: string | null = null;
  cron: string | null = null;
  timezone: string | null = null;
  until: string | null = null;
  maxRuns: i64 = -1;
}

/** `schedule-info` (size 120, align 4). A negative `maxRuns` is none. */
export class ScheduleInfo {
  id: string = "";
  agent: string = "";
  task: string = "";
  kind: string = "";
  at: string | null = null;
  cron: string | null = null;
  timezone: string | null = null;
  until: string | null = null;
  maxRuns: i64 = -1;
  runsSoFar: u32 = 0;
  nextAt: string | null = null;
  status: string = "";
  createdAt: string = "";
}

const SPEC_SIZE: usize = 72;
const INFO_SIZE: usize = 120;
/** `result<schedule-info, host-error>`: the case byte, then the larger payload at +4. */
const RET_SIZE: usize = 4 + INFO_SIZE;

function takeInfo(at: usize): ScheduleInfo {
  const s = new ScheduleInfo();
  s.id = takeStringAt(at);
  s.agent = takeStringAt(at + 8);
  s.task = takeStringAt(at + 16);
  s.kind = takeStringAt(at + 24);
  s.at = takeOptionStringAt(at + 32);
  s.cron = takeOptionStringAt(at + 44);
  s.timezone = takeOptionStringAt(at + 56);
  s.until = takeOptionStringAt(at + 68);
  s.maxRuns = loadOptionU32(at + 80);
  s.runsSoFar = load<u32>(at + 88);
  s.nextAt = takeOptionStringAt(at + 92);
  s.status = takeStringAt(at + 104);
  s.createdAt = takeStringAt(at + 112);
  return s;
}

/** `list: func() -> result<list<schedule-info>, host-error>`. */
export function list(): HostResult<ScheduleInfo[]> {
  const ret = heap.alloc(RET_SIZE);
  listImport(ret);
  let result: HostResult<ScheduleInfo[]>;
  if (load<u8>(ret) == 0) {
    const items = <usize>load<u32>(ret + 4);
    const n = <i32>load<u32>(ret + 8);
    const out = new Array<ScheduleInfo>(n);
    for (let i = 0; i < n; i++) unchecked((out[i] = takeInfo(items + <usize>i * INFO_SIZE)));
    if (items != 0) heap.free(items);
    result = new HostResult<ScheduleInfo[]>(out, null);
  } else {
    result = new HostResult<ScheduleInfo[]>([], takeHostErrorAt(ret + 4));
  }
  heap.free(ret);
  return result;
}

/** `create: func(spec: schedule-spec) -> result<schedule-info, host-error>`. */
export function create(spec: ScheduleSpec): HostResult<ScheduleInfo> {
  const blocks = new Array<usize>();
  const at = heap.alloc(SPEC_SIZE);
  storeString(at, spec.agent, blocks);
  storeString(at + 8, spec.task, blocks);
  storeOptionString(at + 16, spec.at, blocks);
  storeOptionString(at + 28, spec.cron, blocks);
  storeOptionString(at + 40, spec.timezone, blocks);
  storeOptionString(at + 52, spec.until, blocks);
  storeOptionU32(at + 64, spec.maxRuns);
  const ret = heap.alloc(RET_SIZE);
  createImport(at, ret);
  const result = load<u8>(ret) == 0
    ? new HostResult<ScheduleInfo>(takeInfo(ret + 4), null)
    : new HostResult<ScheduleInfo>(new ScheduleInfo(), takeHostErrorAt(ret + 4));
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(at);
  heap.free(ret);
  return result;
}

/** `cancel: func(id: string) -> result<bool, host-error>`. */
export function cancel(id: string): HostResult<bool> {
  const blocks = new Array<usize>();
  const arg = heap.alloc(8);
  storeString(arg, id, blocks);
  const ret = heap.alloc(32);
  cancelImport(<usize>load<u32>(arg), <usize>load<u32>(arg + 4), ret);
  const result = load<u8>(ret) == 0
    ? new HostResult<bool>(load<u8>(ret + 4) != 0, null)
    : new HostResult<bool>(false, takeHostErrorAt(ret + 4));
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(arg);
  heap.free(ret);
  return result;
}

export { HostError };
