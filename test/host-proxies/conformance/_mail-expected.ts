/**
 * Hand-checked disagreements with mailparser, by file (docs/calendar-mail-conformance.md has the
 * same table). In each, the reference is the one that is wrong, or (addresses no mailbox list
 * can hold) guesses where ours shows the header as written.
 */
export const MAIL_EXPECTED: Record<string, { fields: string[]; why: string }> = {
  "mail-corpus/mail-error_emails-bad_date_header.eml": { fields: ["date"], why: "The Date header is empty (its value folded onto an HTML line): mailparser silently gives the parse time; ours shows the delivery time and warns that the Date header cannot be read." },
  "mail-corpus/mail-error_emails-bad_date_header2.eml": { fields: ["date"], why: "`Wed, 15 Dec 2010    59:10 -0500` has no hour: mailparser gives the parse time; ours marks it unreadable." },
  "mail-corpus/mail-error_emails-invalid_subject_characters.eml": { fields: ["subject"], why: "Raw 8-bit ISO-8859-1 bytes in the Subject: mailparser shows U+FFFD (`Forma��o`); ours reads windows-1252 (`Formação`)." },
  "mail-corpus/mail-error_emails-trademark_character_in_subject.eml": { fields: ["date"], why: "Zone `H0500` is not a zone: mailparser gives the parse time; ours marks the Date header unreadable." },
  "mail-corpus/mail-plain_emails-raw_email_with_bad_date.eml": { fields: ["date"], why: "`Pn, 29 paX 2007` (Polish day, garbled month): mailparser gives the parse time; ours marks it unreadable." },
  "mail-corpus/mail-rfc2822-example13.eml": { fields: ["date"], why: "RFC 2822 A.6.3 obsolete `Date  : Fri, 21 Nov 1997 09(comment):   55  :  06 -0600` is valid: ours reads 1997-11-21T15:55:06Z; mailparser gives the parse time." },
  "mail-corpus/mail-plain_emails-raw_email_multiple_from.eml": { fields: ["from", "to", "reply-to"], why: "`tim@powerupdev.com concierge@powerupdev.com` (two addresses, no comma) is no mailbox list: ours shows it as written, both addresses visible; mailparser keeps the first and makes the second a display name." },
  "mail-corpus/mail-rfc2822-example11.eml": { fields: ["to"], why: "RFC 2822 A.6.1 obsolete forms: a source route `<@machine.tld:mary@example.net>`, an empty list element and `jdoe@test   . example` with spaced dots. Ours shows To as written; mailparser drops the route and joins the dots." },
};
