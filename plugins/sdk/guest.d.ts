/**
 * The few globals the guest (StarlingMonkey, built with every WASI feature disabled) has beyond
 * ES2022 that plugins use. There is no Node API, no `console` output, no `process`, no timers
 * worth relying on: everything else arrives through `clawhive:host/*`.
 */

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}

declare class TextDecoder {
  constructor(label?: string, options?: TextDecoderOptions);
  readonly encoding: string;
  readonly fatal: boolean;
  decode(input?: Uint8Array): string;
}

declare class TextEncoder {
  constructor();
  readonly encoding: string;
  encode(input?: string): Uint8Array;
}
