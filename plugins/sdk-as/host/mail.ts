/**
 * Bindings for `clawhive:host/mail@0.1.1` (wit/host/mail.wit), lowered by hand to the canonical
 * ABI as host/memory.ts does. `outgoing` flattens to 10 values (three lists and two strings, a
 * pointer and a length each), so it goes as flat arguments; the result comes back through a
 * return area (the case byte, then the payload at +4).
 */
import { Lent, takeStringAt, takeStringListAt } from "../abi";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

@external("clawhive:host/mail@0.1.1", "send")
declare function sendImport(tp: usize, tl: usize, cp: usize, cl: usize, bp: usize, bl: usize, sp: usize, sl: usize, bodyp: usize, bodyl: usize, ret: usize): void;

/** `receipt` (size 24, align 4). */
export class Receipt {
  messageId: string = "";
  accepted: string[] = [];
  transportId: string = "";
}

const RET: usize = 80;

/** `send: func(message: outgoing) -> result<receipt, host-error>`. */
export function send(to: string[], cc: string[], bcc: string[], subject: string, body: string): HostResult<Receipt> {
  const lent = new Lent();
  lent.stringListTo(lent.area, to);
  lent.stringListTo(lent.area + 8, cc);
  lent.stringListTo(lent.area + 16, bcc);
  lent.string(24, subject);
  lent.string(32, body);
  const ret = lent.area + RET;
  sendImport(lent.ptr(0), lent.len(0), lent.ptr(8), lent.len(8), lent.ptr(16), lent.len(16), lent.ptr(24), lent.len(24), lent.ptr(32), lent.len(32), ret);
  let result: HostResult<Receipt>;
  if (load<u8>(ret) == 0) {
    const r = new Receipt();
    r.messageId = takeStringAt(ret + 4);
    r.accepted = takeStringListAt(ret + 12);
    r.transportId = takeStringAt(ret + 20);
    result = new HostResult<Receipt>(r, null);
  } else {
    result = new HostResult<Receipt>(new Receipt(), takeHostErrorAt(ret + 4));
  }
  lent.free();
  return result;
}

export { HostError };
