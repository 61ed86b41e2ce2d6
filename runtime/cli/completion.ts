import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";

export const completionHelp = `clawhive completion — print a shell completion script

  clawhive completion bash|zsh|fish

  Completes commands, their subcommands and agent names (the *.yaml files of the agents
  folder, capabilities/ unless CLAWHIVE_AGENTS_DIR says otherwise). Install:
    bash:  clawhive completion bash > ~/.local/share/bash-completion/completions/clawhive
    zsh:   clawhive completion zsh > "\${fpath[1]}/_clawhive"   (then: compinit)
    fish:  clawhive completion fish > ~/.config/fish/completions/clawhive.fish

  Exit codes: 0 printed; 2 an unknown shell.`;

/** Every command and its subcommands (a test keeps this equal to the command table). */
export const COMPLETIONS: Readonly<Record<string, readonly string[]>> = {
  serve: [],
  tools: [],
  run: [],
  chat: [],
  call: [],
  plugin: ["install", "upgrade", "list", "info", "remove", "new", "build", "publish"],
  agent: ["validate", "list", "show", "put", "rm"],
  approvals: ["list", "approve", "deny"],
  resume: [],
  conversations: ["compactions", "undo"],
  runs: ["list", "show", "watch", "cancel", "todo"],
  audit: ["tail", "verify"],
  token: ["create", "list", "revoke"],
  secret: ["set", "list", "rm"],
  schedule: ["create", "list", "show", "cancel"],
  skills: [],
  memory: ["search", "write", "forget", "show", "edit"],
  mcp: ["serve"],
  init: [],
  doctor: [],
  completion: ["bash", "zsh", "fish"],
  api: [],
  keys: ["generate", "trust", "list", "revoke"],
  auth: ["google"],
};

/** Commands whose next word is an agent name. */
const AGENT_FIRST = ["run", "chat"];

export async function completionCommand(argv: string[]): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {});
  const [shell, ...extra] = positionals;
  if (extra.length > 0 || (shell !== "bash" && shell !== "zsh" && shell !== "fish")) throw new InvalidInputError("usage: clawhive completion bash|zsh|fish");
  console.log({ bash, zsh, fish }[shell]());
  return 0;
}

const agentsList = `ls "\${CLAWHIVE_AGENTS_DIR:-capabilities}" 2>/dev/null | sed -n 's/\\.yaml$//p'`;

function bash(): string {
  const cases = Object.entries(COMPLETIONS).filter(([, subs]) => subs.length > 0).map(([name, subs]) => `    ${name}) words="${subs.join(" ")}" ;;`);
  return `# clawhive bash completion
_clawhive() {
  local cur=\${COMP_WORDS[COMP_CWORD]} words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${Object.keys(COMPLETIONS).join(" ")}"
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "\${COMP_WORDS[1]}" in
${cases.join("\n")}
    ${AGENT_FIRST.join("|")}) words=$(${agentsList}) ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _clawhive clawhive`;
}

function zsh(): string {
  const cases = Object.entries(COMPLETIONS).filter(([, subs]) => subs.length > 0).map(([name, subs]) => `      ${name}) compadd -- ${subs.join(" ")} ;;`);
  return `#compdef clawhive
# clawhive zsh completion
_clawhive() {
  if (( CURRENT == 2 )); then
    compadd -- ${Object.keys(COMPLETIONS).join(" ")}
  elif (( CURRENT == 3 )); then
    case "\${words[2]}" in
${cases.join("\n")}
      ${AGENT_FIRST.join("|")}) compadd -- $(${agentsList}) ;;
      *) _files ;;
    esac
  else
    _files
  fi
}
compdef _clawhive clawhive`;
}

function fish(): string {
  const lines = [
    "# clawhive fish completion",
    "complete -c clawhive -f",
    `complete -c clawhive -n "__fish_use_subcommand" -a "${Object.keys(COMPLETIONS).join(" ")}"`,
    ...Object.entries(COMPLETIONS)
      .filter(([, subs]) => subs.length > 0)
      .map(([name, subs]) => `complete -c clawhive -n "__fish_seen_subcommand_from ${name}" -a "${subs.join(" ")}"`),
    `complete -c clawhive -n "__fish_seen_subcommand_from ${AGENT_FIRST.join(" ")}" -a "(${agentsList.replaceAll('"', '\\"')})"`,
  ];
  return lines.join("\n");
}
