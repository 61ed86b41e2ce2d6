/**
 * Who acts on the store: the person running the command, as the system names them. Decisions
 * are recorded under this name (or `--by`); a leaf, so every command may ask it.
 */
import { userInfo } from "node:os";
import { InvalidInputError } from "../errors.js";

/** The decider's name when `--by` is not given; `userInfo` throws where the uid has no passwd entry. */
export function currentUser(): string {
  try {
    const name = userInfo().username;
    if (name !== "") return name;
  } catch {
    // fall through: say what to do instead
  }
  throw new InvalidInputError("--by: could not tell who you are from the system; pass --by NAME", { field: "by" });
}

/** Who decides an approval a followed run asks for on the store; asked again (and said) only if one is decided. */
export function knownUser(): string | undefined {
  try {
    return currentUser();
  } catch {
    return undefined;
  }
}
