/** Assertions on the errors host proxies throw, shared by every proxy's tests. */
import assert from "node:assert/strict";
import { HostProxyError, type HostError } from "../../host-proxies/types.js";

export interface Expected {
  tag: HostError["tag"];
  /** For `denied`: the reason code. */
  reason?: string;
  /** For `denied`: the capability. */
  capability?: string;
  /** A substring the message must hold. */
  message?: string;
}

/** Asserts `promise` rejects with a `HostProxyError` of the expected shape; returns it. */
export async function rejectsWith(promise: Promise<unknown>, expected: Expected): Promise<HostProxyError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  return assertHostError(caught, expected);
}

/** Asserts `fn` throws a `HostProxyError` of the expected shape; returns it. */
export function throwsWith(fn: () => unknown, expected: Expected): HostProxyError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  return assertHostError(caught, expected);
}

export function assertHostError(caught: unknown, expected: Expected): HostProxyError {
  assert.ok(caught instanceof HostProxyError, `expected a HostProxyError, got ${String(caught)}`);
  const { hostError } = caught;
  assert.equal(hostError.tag, expected.tag, `tag of: ${caught.message}`);
  if (hostError.tag === "denied") {
    if (expected.reason !== undefined) assert.equal(hostError.val.reason, expected.reason, caught.message);
    if (expected.capability !== undefined) assert.equal(hostError.val.capability, expected.capability, caught.message);
  } else if (expected.reason !== undefined) {
    assert.fail(`expected a denial with reason ${expected.reason}, got ${hostError.tag}: ${caught.message}`);
  }
  if (expected.message !== undefined) {
    assert.ok(caught.message.includes(expected.message), `${JSON.stringify(caught.message)} lacks ${JSON.stringify(expected.message)}`);
  }
  return caught;
}
