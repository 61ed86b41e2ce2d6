// A plugin exporting typed WIT functions: one function per WIT type kind, so tests can check
// the JSON Schema, the lowering of arguments and the lifting of results of each.
type Point = { x: number; y: number };
type Shape = { tag: "circle"; val: number } | { tag: "segment"; val: [Point, Point] } | { tag: "empty" };

export const shapes = {
  describeShape(s: Shape, fill: string | undefined, style: { bold: boolean; italicText: boolean }): string {
    if (s.tag === "empty") throw "empty shape";
    const look = `${style.bold ? "bold " : ""}${style.italicText ? "italic " : ""}${fill ?? "unfilled"}`;
    if (s.tag === "circle") return `${look} circle r=${s.val}`;
    return `${look} segment (${s.val[0].x},${s.val[0].y})-(${s.val[1].x},${s.val[1].y})`;
  },
  movePoint(p: Point, dx: number, dy: number): Point {
    return { x: p.x + dx, y: p.y + dy };
  },
};

export function addSmall(a: number, b: number): number {
  return a + b;
}
export function big(a: bigint, b: bigint): [bigint, bigint] {
  return [a + 1n, b - 1n];
}
export function floats(a: number, b: number): number {
  return a + b;
}
export function chars(c: string, text: string): string[] {
  return [c, ...Array.from(text)];
}
export function bytes(data: Uint8Array): Uint8Array {
  return Uint8Array.from(data, (b) => 255 - b);
}
export function words(items: string[], upper: boolean): string[] {
  return items.map((w) => (upper ? w.toUpperCase() : w));
}
export function maybe(value: number | undefined): string | undefined {
  return value === undefined ? undefined : `got ${value}`;
}
export function nested(value: { tag: "some"; val: number | undefined } | undefined): { tag: "some"; val: number | undefined } | undefined {
  return value;
}
export function nothing(): void {}
export function checked(n: number): number {
  if (n > 100) throw { left: n, rightSide: -1 };
  return n * 2;
}
export function unitResult(ok: boolean): void {
  if (!ok) throw undefined;
}
export function origin(p: { left: number; rightSide: number } | undefined): { left: number; rightSide: number } {
  return p ?? { left: 0, rightSide: 0 };
}
export function boom(): number {
  throw new Error("boom");
}
