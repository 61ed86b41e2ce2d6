/**
 * Recurrence rules in other calendar scales (RFC 7529): `RSCALE=CHINESE;FREQ=YEARLY` means every
 * Chinese New Year, `RSCALE=HEBREW;BYMONTH=5L` the leap month Adar I. ical.js knows none of this:
 * it drops RSCALE and SKIP and expands the rest as a Gregorian rule, inventing dates (every
 * February 10th for Chinese New Year). Mended on the text, before ical.js sees it:
 * - a rule in a scale other than GREGORIAN: dropped, with a warning; the event keeps DTSTART (and
 *   its RDATEs), which are Gregorian dates the file wrote itself, so nothing is invented;
 * - `RSCALE=GREGORIAN`: read as the plain rule it is, with its SKIP (OMIT, BACKWARD or FORWARD:
 *   what an invalid date such as February 29th in a common year becomes) carried to the
 *   expansion as the property parameter `X-CLAWHIVE-SKIP` (month-days.ts applies it), and a
 *   warning that says so;
 * - a SKIP without RSCALE, which RFC 7529 forbids: ignored (RFC 5545's omission holds), warned;
 * - a leap month (`BYMONTH=5L`) in a Gregorian rule: no such month exists; the rule is dropped.
 */

/** Where month-days.ts finds the SKIP of an `RSCALE=GREGORIAN` rule. */
export const SKIP_PARAMETER = "X-CLAWHIVE-SKIP";

const SKIPS = new Set(["OMIT", "BACKWARD", "FORWARD"]);

/** `line` (an RRULE or EXRULE content line, value after `colon`) mended, dropped (`line` undefined) or as it was. */
export function mendRscale(line: string, colon: number): { line?: string | undefined; why?: string } {
  const head = line.slice(0, colon);
  const name = (/^[^;:]*/.exec(head)?.[0] ?? "").toUpperCase();
  const parts = line.slice(colon + 1).trim().split(";").filter((p) => p.trim() !== "");
  const valueOf = (key: string) => parts.find((p) => p.split("=")[0]?.trim().toUpperCase() === key)?.split("=")[1]?.trim().toUpperCase();
  const scale = valueOf("RSCALE");
  const skip = valueOf("SKIP");
  const leapMonth = /(^|,)\d{1,2}L(,|$)/i.test(valueOf("BYMONTH") ?? "");
  if (scale === undefined && skip === undefined && !leapMonth) return { line };
  const shown = JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
  if (scale !== undefined && scale !== "GREGORIAN") {
    return { why: `dropped ${shown}: a rule in the ${scale} calendar scale (RFC 7529), which this reader cannot expand; only DTSTART and RDATEs are listed, no dates are guessed` };
  }
  if (leapMonth) return { why: `dropped ${shown}: a leap month (BYMONTH=…L) does not exist in the Gregorian calendar; only DTSTART and RDATEs are listed` };
  const rest = parts.filter((p) => !/^\s*(RSCALE|SKIP)\s*=/i.test(p)).join(";");
  if (scale === undefined) {
    return { line: `${head}:${rest}`, why: `ignored SKIP in ${shown}: RFC 7529 allows SKIP only with RSCALE; invalid dates (such as February 29th in a common year) are omitted, as RFC 5545 says` };
  }
  const chosen = skip !== undefined && SKIPS.has(skip) ? skip : "OMIT";
  const unknown = skip !== undefined && !SKIPS.has(skip) ? ` (SKIP=${skip} is not OMIT, BACKWARD or FORWARD: OMIT is used)` : "";
  return {
    line: `${head};${SKIP_PARAMETER}=${chosen}:${rest}`,
    why: `${name} with RSCALE=GREGORIAN (RFC 7529): expanded in the Gregorian calendar, an invalid date handled by SKIP=${chosen}${unknown}`,
  };
}
