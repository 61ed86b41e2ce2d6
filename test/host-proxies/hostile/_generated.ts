/**
 * Hostile inputs too large to keep as files: made on demand, each one byte-for-byte the same
 * every time. Together with test/fixtures/hostile/ they form the corpus the parsers face.
 */
const CRLF = "\r\n";
const MB = 1024 * 1024;

function calendar(body: string): Buffer {
  return Buffer.from(`BEGIN:VCALENDAR${CRLF}VERSION:2.0${CRLF}PRODID:-//clawhive//hostile//EN${CRLF}${body}END:VCALENDAR${CRLF}`);
}

function event(uid: string, lines: string[]): string {
  return [`BEGIN:VEVENT`, `UID:${uid}@hostile`, `DTSTAMP:20260101T000000Z`, ...lines, `END:VEVENT`, ""].join(CRLF);
}

function mail(headers: string[], body: string): Buffer {
  return Buffer.from([`From: a@example.com`, `To: b@example.com`, `Message-ID: <gen@hostile>`, ...headers, "", body].join(CRLF), "latin1");
}

export const GENERATED_ICS: Record<string, () => Buffer> = {
  "components nested 50 000 deep": () => calendar(`${"BEGIN:VEVENT\r\n".repeat(50_000)}${"END:VEVENT\r\n".repeat(50_000)}`),
  "a 15 MB SUMMARY line": () => calendar(event("long-line", ["DTSTART:20260301T090000Z", `SUMMARY:${"A".repeat(15 * MB)}`])),
  "an RDATE with 200 000 dates": () =>
    calendar(event("rdates", ["DTSTART:20260101T000000Z", "DTEND:20260101T000001Z", `RDATE:${Array.from({ length: 200_000 }, (_, i) => `2026${String((i % 12) + 1).padStart(2, "0")}01T${String(i % 24).padStart(2, "0")}0000Z`).join(",")}`])),
  "20 000 events": () => calendar(Array.from({ length: 20_000 }, (_, i) => event(`e${i}`, ["DTSTART:20260301T090000Z", "DTEND:20260301T100000Z", "RRULE:FREQ=HOURLY;COUNT=100"])).join("")),
};

export const GENERATED_MAIL: Record<string, () => Buffer> = {
  "multiparts nested 20 000 deep": () => {
    const depth = 20_000;
    let body = "";
    for (let i = 0; i < depth; i++) body += `--b${i}\r\nContent-Type: multipart/mixed; boundary="b${i + 1}"\r\n\r\n`;
    body += `--b${depth}\r\nContent-Type: text/plain\r\n\r\ndeep\r\n`;
    return mail([`Subject: deep`, `Content-Type: multipart/mixed; boundary="b0"`], body);
  },
  "a 20 MB header line": () => mail([`Subject: ${"S".repeat(20 * MB)}`, "Content-Type: text/plain"], "short body"),
  "a 5 MB encoded word": () => mail([`Subject: =?utf-8?Q?${"a".repeat(5 * MB)}?=`, "Content-Type: text/plain"], "short body"),
  "50 000 parts": () => mail([`Subject: parts`, `Content-Type: multipart/mixed; boundary="p"`], `${"--p\r\nContent-Type: text/plain\r\n\r\nx\r\n".repeat(50_000)}--p--\r\n`),
  "HTML nested 100 000 deep": () => mail([`Subject: html`, "Content-Type: text/html"], `${"<div>".repeat(100_000)}deep${"</div>".repeat(100_000)}`),
  "HTML of 200 000 unclosed tables": () => mail([`Subject: tables`, "Content-Type: text/html"], "<table><tr><td>".repeat(200_000)),
};
