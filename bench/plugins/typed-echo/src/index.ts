// The typed counterpart of bench/plugins/echo: the same input, as WIT parameters.
export function echo(text: string, limit: number): { text: string; limit: number } {
  return { text, limit };
}
