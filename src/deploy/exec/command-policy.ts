import { syntax } from 'mvdan-sh';
import { posix } from 'node:path';

// Loading mvdan-sh (GopherJS) sets Error.stackTraceLimit = Infinity for the whole process; put back Node's default.
Error.stackTraceLimit = 10;

/**
 * Stable ids of the rules that can refuse a command (deployment-gateway.md, Errors: blocked commands).
 * `unparsable` covers empty input and anything the shell parser rejects, so the policy fails closed.
 */
export const COMMAND_RULE_IDS = [
  'rm-root',
  'shutdown',
  'mkfs',
  'dd-raw-copy',
  'firewall-flush',
  'firewall-disable',
  'stop-web-server',
  'download-to-shell',
  'unparsable',
] as const;

/** One of {@link COMMAND_RULE_IDS}. */
export type CommandRuleId = (typeof COMMAND_RULE_IDS)[number];

/**
 * Outcome of {@link evaluateCommand}: `{ allowed: true }`, or `{ allowed: false, rule, reason }` where `rule` is a
 * {@link CommandRuleId} and `reason` one sentence naming what matched
 * (deployment-gateway.md, Errors: blocked commands).
 */
export interface CommandVerdict {
  allowed: boolean;
  rule?: CommandRuleId;
  reason?: string;
}

/** A simple command after wrappers (`sudo`, `env`, …) are stripped: basename of the program plus its arguments. */
interface NormalisedCommand {
  program: string;
  args: string[];
  /** Reached through `xargs`, so stdin becomes its arguments (for an interpreter: its code). */
  viaXargs: boolean;
}

/** How a program's options are spelled, so operands can be told apart from option values. */
interface OptionSpec {
  /** Short option letters that take a value, attached (`-uroot`) or as the next word. */
  valueShort?: string;
  /** Long options that take the next word as their value when written without `=`. */
  valueLong?: readonly string[];
  /** Keep reading options after the first operand (GNU getopt permutes; wrappers do not). */
  permute?: boolean;
  /** `+o`-style words are options too (shells). */
  plusOptions?: boolean;
  /** Skip `NAME=value` words before the command (`sudo`, `env`). */
  assignments?: boolean;
}

/** A program that runs code: which flags give it an inline program, which one makes it read stdin. */
interface InterpreterSpec extends OptionSpec {
  names: RegExp;
  inlineShort: string;
  inlineLong?: readonly string[];
  stdinShort?: string;
}

const ALLOWED: CommandVerdict = Object.freeze({ allowed: true });

/** Nested `sh -c` / `eval` levels; deeper input is refused rather than half checked. */
const MAX_NESTING = 8;

// Go token numbers from mvdan.cc/sh/v3/syntax (checked against mvdan-sh 0.10.1).
const OP_PIPE = 12;
const OP_PIPE_ALL = 13;
const OP_HEREDOC = 61;
const OP_HEREDOC_DASH = 62;
const OP_HERESTRING = 63;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Prefixes that run the rest of their arguments as a command. `timeout` also takes a duration operand first. */
const WRAPPERS = new Map<string, OptionSpec>([
  [
    'sudo',
    {
      valueShort: 'ugpCDrtTUR',
      valueLong: ['--user', '--group', '--prompt', '--close-from', '--chdir', '--role', '--type', '--command-timeout'],
      assignments: true,
    },
  ],
  ['doas', { valueShort: 'uC' }],
  ['env', { valueShort: 'uCS', valueLong: ['--unset', '--chdir', '--split-string'], assignments: true }],
  ['nohup', {}],
  ['nice', { valueShort: 'n', valueLong: ['--adjustment'] }],
  ['timeout', { valueShort: 'sk', valueLong: ['--signal', '--kill-after'] }],
  ['exec', { valueShort: 'a' }],
  ['command', {}],
  ['builtin', {}],
  [
    'xargs',
    {
      valueShort: 'aEdILnPs',
      valueLong: ['--arg-file', '--delimiter', '--max-lines', '--max-args', '--max-procs', '--max-chars'],
    },
  ],
  ['time', { valueShort: 'fo', valueLong: ['--format', '--output'] }],
  ['stdbuf', { valueShort: 'ioe', valueLong: ['--input', '--output', '--error'] }],
  ['setsid', {}],
  ['busybox', {}],
]);

const SHELLS = /^(sh|bash|dash|zsh|ksh|mksh|ash)$/;
const SHELL_OPTIONS: OptionSpec = { valueShort: 'oO', plusOptions: true };

const INTERPRETERS: readonly InterpreterSpec[] = [
  { names: SHELLS, inlineShort: 'c', stdinShort: 's', ...SHELL_OPTIONS },
  { names: /^python[0-9.]*$/, inlineShort: 'cm', valueShort: 'WX' },
  { names: /^perl[0-9.]*$/, inlineShort: 'eE' },
  { names: /^ruby[0-9.]*$/, inlineShort: 'e', valueShort: 'rIC' },
  {
    names: /^(node|nodejs)$/,
    inlineShort: 'ep',
    inlineLong: ['--eval', '--print'],
    valueShort: 'r',
    valueLong: ['--require', '--import', '--loader'],
  },
  { names: /^php[0-9.]*$/, inlineShort: 'rfRBEF', valueShort: 'cdzt' },
];

/** Script operands that still mean "read the program from stdin". */
const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
/** Builtins that run a string or file as shell code, so a downloaded argument is executed. */
const EVALUATORS = new Set(['eval', 'source', '.']);
const DOWNLOADERS = new Set(['curl', 'wget', 'wget2', 'fetch']);

const POWER_PROGRAMS = new Set(['shutdown', 'reboot', 'poweroff', 'halt']);
const POWER_VERBS = new Set(['poweroff', 'reboot', 'halt', 'kexec']);
const POWER_TARGETS = new Set(['poweroff.target', 'reboot.target', 'halt.target', 'kexec.target']);
const DISK_FORMATTERS = new Set(['mkfs', 'mke2fs', 'mkswap', 'wipefs']);
const PARTITION_EDITORS = new Set(['fdisk', 'sfdisk', 'parted']);
const IPTABLES = /^ip6?tables(-legacy|-nft)?$/;
const FIREWALL_UNITS = new Set(['firewalld', 'ufw', 'nftables', 'iptables', 'ip6tables', 'netfilter-persistent']);
const WEB_SERVER_UNITS = new Set(['nginx']);
const STOP_ACTIONS = new Set(['stop', 'kill', 'disable', 'mask', 'force-stop']);

const SYSTEMCTL_OPTIONS: OptionSpec = {
  valueShort: 'tspPHMno',
  valueLong: ['--type', '--state', '--property', '--signal', '--host', '--machine', '--lines', '--output'],
  permute: true,
};

/** `/`, a top-level system directory (`/lib*` included). */
const PROTECTED_DIRECTORY = /^\/(bin|boot|dev|etc|home|lib[^/]*|opt|proc|root|sbin|srv|sys|usr|var)?$/;
/** Stand-in absolute path for `~` / `$HOME`, so `$HOME/..` normalises to the protected `/home`. */
const HOME_SENTINEL = '/home/~';

type CommandRule = { id: CommandRuleId; match: (command: NormalisedCommand) => string | undefined };

/** Blocked-list rules that look at one normalised simple command; the pipeline rule lives in the walker. */
const SIMPLE_COMMAND_RULES: readonly CommandRule[] = [
  { id: 'rm-root', match: matchRootDeletion },
  { id: 'shutdown', match: matchShutdown },
  { id: 'mkfs', match: matchDiskFormatting },
  { id: 'dd-raw-copy', match: matchRawCopy },
  { id: 'firewall-flush', match: matchFirewallFlush },
  { id: 'firewall-disable', match: matchFirewallDisable },
  { id: 'stop-web-server', match: matchWebServerStop },
];

// Creating a parser is the expensive part; Parse resets it per call (nested re-parses during a walk are tested).
const parser = syntax.NewParser();

/**
 * Decides whether `POST /api/exec` may run `command` (deployment-gateway.md, Errors: blocked commands). Pure: no I/O,
 * never throws. The command is parsed as Bash and every simple command anywhere in the tree (lists, pipelines,
 * substitutions, subshells, compound bodies, functions, `sh -c` / `eval` strings, heredocs fed to a shell) is checked
 * after stripping assignments, wrappers (`sudo`, `env`, `nohup`, …), directories and quotes from the program name.
 *
 * @param command the raw command line as the client sent it
 * @returns `{ allowed: true }`, or `{ allowed: false, rule, reason }` for the first rule that matched
 */
export function evaluateCommand(command: string): CommandVerdict {
  remainingVisits = MAX_NODE_VISITS;
  const file = parse(command);
  if (!('Stmts' in file)) return file;
  if (file.Stmts.length === 0) return refuse('unparsable', 'The command is empty.');
  return walkScript(file, command, 0);
}

/** Parses one script, or returns the `unparsable` verdict. */
function parse(script: string): syntax.File | CommandVerdict {
  try {
    return parser.Parse(script, 'command');
  } catch (error) {
    return refuse('unparsable', `The shell parser rejected the command (${describeError(error)}).`);
  }
}

function describeError(error: unknown): string {
  const parseError = error as Partial<syntax.ParseError> | null;
  const message = typeof parseError?.Error === 'function' ? parseError.Error() : String(error);
  return message.replace(/^command:/, '');
}

/** Per-script walk state: UTF-8 bytes (node offsets count bytes), nesting depth, pipelines already checked. */
interface ScriptContext {
  bytes: Buffer;
  depth: number;
  checkedPipelines: Set<number>;
}

function walkScript(file: syntax.File, script: string, depth: number): CommandVerdict {
  const context: ScriptContext = { bytes: Buffer.from(script, 'utf8'), depth, checkedPipelines: new Set() };
  let verdict = ALLOWED;
  try {
    visitNodes(file, (node) => {
      if (!verdict.allowed) return false;
      const type = syntax.NodeType(node);
      if (type === 'Stmt') verdict = checkStatement(node as syntax.Stmt, context);
      else if (type === 'BinaryCmd') verdict = checkPipeline(node as syntax.BinaryCmd, context);
      return verdict.allowed;
    });
  } catch (error) {
    if (error instanceof CommandTooComplexError) return refuse('unparsable', error.message);
    // Not expected for a tree the parser produced; fail closed all the same.
    return refuse('unparsable', `The command could not be checked (${describeError(error)}).`);
  }
  return verdict;
}

/**
 * Pre-order visit of every syntax node under `root`; `visit` returns false to skip a node's children. Iterative on
 * purpose: the recursive `syntax.Walk` of the GopherJS build overflows the stack on long chains (1,000 `a | b | …`
 * stages) or deep nesting, and leaves its runtime broken for the next call.
 */
function visitNodes(root: syntax.Node, visit: (node: syntax.Node) => boolean): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    if (--remainingVisits < 0) throw new CommandTooComplexError();
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) pending.push(value[index]);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    // Nodes have a Pos() method; field-only structs (a `${x:off:len}` slice, a `${x/a/b}` replacement) are walked too.
    if (typeof (value as Partial<syntax.Node>).Pos === 'function' && !visit(value as syntax.Node)) continue;
    // Own properties are the Go struct fields, plus GopherJS internals (`$type`, `__internal_object__`).
    const record = value as Record<string, unknown>;
    const fields = Object.getOwnPropertyNames(record).filter((name) => !name.startsWith('$') && !name.startsWith('__'));
    for (let index = fields.length - 1; index >= 0; index--) pending.push(record[fields[index]]);
  }
}

/**
 * Work budget of one evaluation, in syntax-tree values visited (nested scripts included). Checking costs tens of
 * microseconds per value on the event loop, so a command with thousands of chained stages is refused as too
 * complex (fail closed, ~0.3 s at most) instead of blocking the server for seconds.
 */
const MAX_NODE_VISITS = 8_000;
let remainingVisits = MAX_NODE_VISITS;

/** Thrown when an evaluation runs out of {@link MAX_NODE_VISITS}. */
class CommandTooComplexError extends Error {
  constructor() {
    super('The command is too complex to check (too many chained commands); split it into several calls.');
  }
}

/** Re-parses a script found inside the command (`sh -c`, `eval`, heredoc, echoed text); empty is fine here. */
function evaluateNested(script: string, depth: number): CommandVerdict {
  if (depth > MAX_NESTING) {
    return refuse('unparsable', `The command nests shell scripts more than ${MAX_NESTING} levels deep.`);
  }
  const file = parse(script);
  return 'Stmts' in file ? walkScript(file, script, depth) : file;
}

function checkStatement(statement: syntax.Stmt, context: ScriptContext): CommandVerdict {
  const call = callOf(statement);
  if (call === undefined || call.Args.length === 0) return ALLOWED;
  const words = call.Args;
  const command = normalise(words.map((word) => wordValue(word, context)));
  if (command === undefined) return ALLOWED;

  for (const rule of SIMPLE_COMMAND_RULES) {
    const reason = rule.match(command);
    if (reason !== undefined) return refuse(rule.id, reason);
  }

  // `$(curl …)` as the program, or `sh <(curl …)` / `bash -c "$(curl …)"` / `eval "$(wget …)"`.
  const runsCode = EVALUATORS.has(command.program) || interpreterOf(command.program) !== undefined;
  const fedWords = runsCode ? [...words, ...redirectWords(statement)] : [words[0]];
  const downloader = fedWords.map((word) => downloaderIn(word, context)).find(Boolean);
  if (downloader !== undefined) {
    return refuse(
      'download-to-shell',
      `The output of "${downloader}" is substituted into "${command.program}", which would run the downloaded code.`,
    );
  }

  for (const script of nestedScripts(command, statement, context)) {
    const verdict = evaluateNested(script, context.depth + 1);
    if (!verdict.allowed) return verdict;
  }
  return ALLOWED;
}

/** `downloader | … | interpreter`, plus `echo '<script>' | sh`, whose echoed text is checked as a script. */
function checkPipeline(pipeline: syntax.BinaryCmd, context: ScriptContext): CommandVerdict {
  // `a | b | c` nests as `(a | b) | c`; the inner node starts where the outer one does and was covered by it.
  if (!isPipe(pipeline)) return ALLOWED;
  const start = pipeline.Pos().Offset();
  if (context.checkedPipelines.has(start)) return ALLOWED;
  context.checkedPipelines.add(start);

  const stages = pipelineStages(pipeline);
  let downloader: string | undefined;
  for (const [index, stage] of stages.entries()) {
    const commands = simpleCommandsIn(stage, context);
    const interpreter = commands.find(readsProgramFromStdin);
    if (index > 0 && interpreter !== undefined) {
      if (downloader !== undefined) {
        return refuse(
          'download-to-shell',
          `The output of "${downloader}" is piped into "${interpreter.program}", which would run the downloaded code.`,
        );
      }
      const written = SHELLS.test(interpreter.program) ? writtenText(stages[index - 1], context) : undefined;
      const verdict = written === undefined ? ALLOWED : evaluateNested(written, context.depth + 1);
      if (!verdict.allowed) return verdict;
    }
    downloader ??= commands.find((command) => DOWNLOADERS.has(command.program))?.program;
  }
  return ALLOWED;
}

function isPipe(node: syntax.Node | null): node is syntax.BinaryCmd {
  if (node === null || syntax.NodeType(node) !== 'BinaryCmd') return false;
  const op = (node as syntax.BinaryCmd).Op;
  return op === OP_PIPE || op === OP_PIPE_ALL;
}

function pipelineStages(pipeline: syntax.BinaryCmd): syntax.Stmt[] {
  const stages: syntax.Stmt[] = [pipeline.Y];
  let left = pipeline.X;
  // Iterative on the left spine, so long pipelines do not recurse deeply.
  while (isPipe(left.Cmd)) {
    stages.unshift(left.Cmd.Y);
    left = left.Cmd.X;
  }
  return [left, ...stages];
}

function callOf(statement: syntax.Stmt): syntax.CallExpr | undefined {
  const command = statement.Cmd;
  return command !== null && syntax.NodeType(command) === 'CallExpr' ? (command as syntax.CallExpr) : undefined;
}

/** Every simple command under `node` (substitutions included), normalised. */
function simpleCommandsIn(node: syntax.Node, context: ScriptContext): NormalisedCommand[] {
  const commands: NormalisedCommand[] = [];
  visitNodes(node, (child) => {
    const call = syntax.NodeType(child) === 'Stmt' ? callOf(child as syntax.Stmt) : undefined;
    const command = call && normalise(call.Args.map((word) => wordValue(word, context)));
    if (command) commands.push(command);
    return true;
  });
  return commands;
}

/** The downloader program run inside a substitution within `word`, if any. */
function downloaderIn(word: syntax.Word, context: ScriptContext): string | undefined {
  return simpleCommandsIn(word, context).find((command) => DOWNLOADERS.has(command.program))?.program;
}

function redirectWords(statement: syntax.Stmt): syntax.Word[] {
  return statement.Redirs.flatMap((redirect) =>
    [redirect.Word, redirect.Hdoc].filter((word): word is syntax.Word => word !== null),
  );
}

/** Scripts only visible as strings: `sh -c '…'`, `eval …`, heredocs/herestrings fed to a shell. */
function nestedScripts(command: NormalisedCommand, statement: syntax.Stmt, context: ScriptContext): string[] {
  if (command.program === 'eval') return [command.args.join(' ')];
  if (!SHELLS.test(command.program)) return [];
  const { options, operands } = parseArgs(command.args, SHELL_OPTIONS);
  if (options.has('-c')) return operands.slice(0, 1);
  return readsProgramFromStdin(command) ? inlineInput(statement, context) : [];
}

/** Heredoc bodies and herestrings given to a statement as stdin. */
function inlineInput(statement: syntax.Stmt, context: ScriptContext): string[] {
  return statement.Redirs.flatMap((redirect) => {
    const isHeredoc = redirect.Op === OP_HEREDOC || redirect.Op === OP_HEREDOC_DASH;
    if (isHeredoc && redirect.Hdoc !== null) return [wordValue(redirect.Hdoc, context, true)];
    if (redirect.Op === OP_HERESTRING && redirect.Word !== null) return [wordValue(redirect.Word, context)];
    return [];
  });
}

/** The literal text a pipeline stage writes: `echo`/`printf` arguments, or a heredoc passed through bare `cat`. */
function writtenText(stage: syntax.Stmt, context: ScriptContext): string | undefined {
  const call = callOf(stage);
  const command = call && normalise(call.Args.map((word) => wordValue(word, context)));
  if (command?.program === 'echo') {
    return command.args.filter((arg, index) => !(index === 0 && /^-[neE]+$/.test(arg))).join(' ');
  }
  if (command?.program === 'printf') return command.args.join(' ').replace(/\\n/g, '\n');
  if (command?.program === 'cat' && command.args.length === 0) return inlineInput(stage, context).join('\n');
  return undefined;
}

function interpreterOf(program: string): InterpreterSpec | undefined {
  return INTERPRETERS.find((spec) => spec.names.test(program));
}

/** True when an interpreter gets no inline program and no script file, so it executes whatever arrives on stdin. */
function readsProgramFromStdin(command: NormalisedCommand): boolean {
  const spec = interpreterOf(command.program);
  if (spec === undefined) return false;
  if (command.viaXargs) return true;
  const { options, operands } = parseArgs(command.args, spec);
  const hasInlineProgram =
    [...spec.inlineShort].some((letter) => options.has(`-${letter}`)) ||
    (spec.inlineLong ?? []).some((option) => options.has(option));
  if (hasInlineProgram) return false;
  if (spec.stdinShort !== undefined && options.has(`-${spec.stdinShort}`)) return true;
  return operands.length === 0 || STDIN_PATHS.has(operands[0]);
}

/** Strips wrappers until the real program is reached; undefined when nothing runs (`command -v x`, bare `nohup`). */
function normalise(argv: string[]): NormalisedCommand | undefined {
  let words = argv;
  let viaXargs = false;
  for (let hops = 0; words.length > 0 && hops < 16; hops++) {
    const program = posix.basename(words[0]);
    const spec = WRAPPERS.get(program);
    if (spec === undefined) break;
    const { options, operands } = parseArgs(words.slice(1), spec);
    if (program === 'command' && (options.has('-v') || options.has('-V'))) return undefined;
    // A bare `sudo -s` / `sudo -i` starts a shell that reads commands from stdin.
    if (program === 'sudo' && operands.length === 0 && (options.has('-s') || options.has('-i'))) {
      return { program: 'sh', args: [], viaXargs };
    }
    viaXargs ||= program === 'xargs';
    words = program === 'timeout' ? operands.slice(1) : operands;
    // `env -S 'rm -rf /'` splits its value into the command line.
    const split = program === 'env' ? (options.get('-S') ?? options.get('--split-string')) : undefined;
    if (split) words = [...split.split(/\s+/).filter(Boolean), ...words];
  }
  return words.length > 0 ? { program: posix.basename(words[0]), args: words.slice(1), viaXargs } : undefined;
}

/**
 * Splits arguments into options (`-x` / `--long` → value, '' for a flag) and operands. Without `permute`, parsing
 * stops at the first operand and everything from there on is an operand (the wrapped command).
 */
function parseArgs(args: readonly string[], spec: OptionSpec): { options: Map<string, string>; operands: string[] } {
  const options = new Map<string, string>();
  const operands: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const name = equals < 0 ? arg : arg.slice(0, equals);
      const takesNextWord = equals < 0 && spec.valueLong?.includes(name);
      options.set(name, equals >= 0 ? arg.slice(equals + 1) : takesNextWord ? (args[++index] ?? '') : '');
    } else if (arg.length > 1 && (arg[0] === '-' || (spec.plusOptions && arg[0] === '+'))) {
      for (let position = 1; position < arg.length; position++) {
        const letter = arg[position];
        if (spec.valueShort?.includes(letter)) {
          options.set(`-${letter}`, position + 1 < arg.length ? arg.slice(position + 1) : (args[++index] ?? ''));
          break;
        }
        options.set(`-${letter}`, '');
      }
    } else if (spec.assignments && ASSIGNMENT.test(arg)) {
      continue;
    } else if (spec.permute) {
      operands.push(arg);
    } else {
      operands.push(...args.slice(index));
      break;
    }
  }
  return { options, operands };
}

/**
 * What the shell would pass as this word, with quotes and escapes removed. Expansions that depend on run time
 * (`$(…)`, `$((…))`, `${x:-y}`) keep their source text, and `$HOME`/`${HOME}` both read `$HOME`; `raw` keeps
 * backslashes (heredoc bodies, which are re-parsed as scripts).
 */
function wordValue(word: syntax.Word, context: ScriptContext, raw = false): string {
  return word.Parts.map((part) => partValue(part, context, raw ? 'raw' : 'unquoted')).join('');
}

function partValue(part: syntax.Node, context: ScriptContext, mode: 'raw' | 'unquoted' | 'double'): string {
  switch (syntax.NodeType(part)) {
    case 'Lit': {
      const value = (part as syntax.Lit).Value;
      if (mode === 'raw') return value;
      const escape = mode === 'double' ? /\\([$`"\\\n])/g : /\\(.)/gs;
      return value.replace(escape, (_, escaped: string) => (escaped === '\n' ? '' : escaped));
    }
    case 'SglQuoted': {
      const quoted = part as syntax.SglQuoted;
      return quoted.Dollar ? decodeAnsiC(quoted.Value) : quoted.Value;
    }
    case 'DblQuoted': {
      const innerMode = mode === 'raw' ? 'raw' : 'double';
      return (part as syntax.DblQuoted).Parts.map((inner) => partValue(inner, context, innerMode)).join('');
    }
    case 'ParamExp': {
      const { Param, Excl, Length, Width, Index, Slice, Repl, Exp } = part as syntax.ParamExp;
      const plain = Param !== null && !Excl && !Length && !Width && !Index && !Slice && !Repl && !Exp;
      return plain ? `$${Param.Value}` : sourceText(part, context);
    }
    default:
      return sourceText(part, context);
  }
}

function sourceText(node: syntax.Node, context: ScriptContext): string {
  return context.bytes.subarray(node.Pos().Offset(), node.End().Offset()).toString('utf8');
}

const ANSI_C_ESCAPES = new Map(
  Object.entries({ a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }),
);
const ANSI_C_ESCAPE = /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs;

/** Decodes the escapes of a `$'…'` string, so `$'\x72m'` reads `rm`. */
function decodeAnsiC(value: string): string {
  return value.replace(ANSI_C_ESCAPE, (_, escape: string) => {
    if (/^[xuU]/.test(escape)) {
      const codePoint = parseInt(escape.slice(1), 16);
      return String.fromCodePoint(codePoint > 0x10ffff ? 0xfffd : codePoint);
    }
    if (/^[0-7]/.test(escape)) return String.fromCharCode(parseInt(escape, 8));
    if (escape.startsWith('c')) return String.fromCharCode(escape.charCodeAt(1) & 0x1f);
    return ANSI_C_ESCAPES.get(escape) ?? escape;
  });
}

function refuse(rule: CommandRuleId, reason: string): CommandVerdict {
  return { allowed: false, rule, reason };
}

/** `rm` recursing into `/`, a top-level system directory or the home directory, or any `rm --no-preserve-root`. */
function matchRootDeletion({ program, args }: NormalisedCommand): string | undefined {
  if (program !== 'rm') return undefined;
  let recursive = false;
  let optionsEnded = false;
  const targets: string[] = [];
  for (const arg of args) {
    if (optionsEnded || arg === '-' || !arg.startsWith('-')) {
      targets.push(arg);
    } else if (arg === '--') {
      optionsEnded = true;
    } else if (arg.startsWith('--')) {
      // GNU accepts unambiguous prefixes (`--rec`, `--no-p`).
      if ('--no-preserve-root'.startsWith(arg)) return 'rm with --no-preserve-root would allow deleting the root.';
      if ('--recursive'.startsWith(arg)) recursive = true;
    } else if (/[rR]/.test(arg)) {
      recursive = true;
    }
  }
  const target = recursive ? targets.find(isProtectedPath) : undefined;
  if (target === undefined) return undefined;
  return `rm would recursively delete "${target}", the filesystem root, a top-level system or the home directory.`;
}

function isProtectedPath(target: string): boolean {
  const absolute = target.replace(/^(~|\$HOME)(?=\/|$)/, HOME_SENTINEL);
  if (!absolute.startsWith('/')) return false;
  const directory = posix.normalize(absolute).replace(/\/+$/, '').replace(/\/\.?\*$/, '') || '/';
  return directory === HOME_SENTINEL || PROTECTED_DIRECTORY.test(directory);
}

/** The action and unit names of `systemctl <verb> <units…>` or `service <unit> <action>` / `rc-service`. */
function serviceAction({ program, args }: NormalisedCommand): { action: string; units: string[] } | undefined {
  if (program === 'systemctl') {
    const [action = '', ...units] = parseArgs(args, SYSTEMCTL_OPTIONS).operands;
    return { action, units: units.map((unit) => unit.replace(/\.service$/, '')) };
  }
  if (program === 'service' || program === 'rc-service') {
    const [unit = '', action = ''] = parseArgs(args, { permute: true }).operands;
    return { action, units: [unit.replace(/\.service$/, '')] };
  }
  return undefined;
}

type StoppedUnit = { action: string; unit?: string };

/** The first of `units` that a systemctl/service command stops, kills, disables or masks. */
function stoppedUnit(command: NormalisedCommand, units: ReadonlySet<string>): StoppedUnit | undefined {
  const service = serviceAction(command);
  if (service === undefined || !STOP_ACTIONS.has(service.action)) return undefined;
  return { action: service.action, unit: service.units.find((name) => units.has(name)) };
}

function matchShutdown(command: NormalisedCommand): string | undefined {
  const { program, args } = command;
  if (POWER_PROGRAMS.has(program)) return `"${program}" would shut down or reboot the server.`;
  if ((program === 'init' || program === 'telinit') && args.some((arg) => arg === '0' || arg === '6')) {
    return `"${program}" to runlevel 0 or 6 would shut down or reboot the server.`;
  }
  const service = program === 'systemctl' ? serviceAction(command) : undefined;
  if (service === undefined) return undefined;
  const startsPowerTarget =
    ['start', 'isolate'].includes(service.action) && service.units.some((unit) => POWER_TARGETS.has(unit));
  if (POWER_VERBS.has(service.action) || startsPowerTarget) {
    return `"systemctl ${service.action}" would shut down or reboot the server.`;
  }
  return undefined;
}

function matchDiskFormatting({ program, args }: NormalisedCommand): string | undefined {
  if (DISK_FORMATTERS.has(program) || program.startsWith('mkfs.')) return `"${program}" would format or wipe a disk.`;
  // Listing partitions (`fdisk -l`) is read-only.
  if (PARTITION_EDITORS.has(program) && !args.some((arg) => arg === '-l' || arg === '--list')) {
    return `"${program}" would rewrite a disk's partition table.`;
  }
  return undefined;
}

function matchRawCopy({ program, args }: NormalisedCommand): string | undefined {
  const input = program === 'dd' ? args.find((arg) => arg.startsWith('if=')) : undefined;
  return input === undefined ? undefined : `dd with "${input}" is a raw disk copy.`;
}

function matchFirewallFlush({ program, args }: NormalisedCommand): string | undefined {
  if (IPTABLES.test(program)) {
    const flush = args.find((arg) => arg === '--flush' || arg === '--delete-chain' || /^-[a-z]*[FX]/.test(arg));
    if (flush !== undefined) return `"${program} ${flush}" would flush or delete firewall rules.`;
  }
  // nft accepts its command as one quoted word too: `nft 'flush ruleset'`.
  if (program === 'nft' && args.flatMap((arg) => arg.split(/\s+/)).includes('flush')) {
    return '"nft flush" would remove firewall rules.';
  }
  return undefined;
}

function matchFirewallDisable(command: NormalisedCommand): string | undefined {
  const { program, args } = command;
  if (program === 'ufw') {
    const { operands } = parseArgs(args, { permute: true });
    const verb = operands.find((operand) => ['disable', 'reset', 'stop'].includes(operand));
    if (verb !== undefined) return `"ufw ${verb}" would turn the firewall off.`;
  }
  const { action, unit } = stoppedUnit(command, FIREWALL_UNITS) ?? {};
  return unit === undefined ? undefined : `"${program} ${action} ${unit}" would turn the firewall off.`;
}

function matchWebServerStop(command: NormalisedCommand): string | undefined {
  const { program, args } = command;
  if (program === 'nginx') {
    // `nginx -s stop`, or the init script `/etc/init.d/nginx stop`.
    const { options, operands } = parseArgs(args, { valueShort: 'scpeg', permute: true });
    const signal = options.get('-s');
    if (signal === 'stop' || signal === 'quit' || STOP_ACTIONS.has(operands[0] ?? '')) {
      return 'This would stop the nginx web server.';
    }
  }
  if ((program === 'killall' || program === 'pkill') && args.some((arg) => arg.includes('nginx'))) {
    return `"${program}" would kill the nginx web server.`;
  }
  const { action, unit } = stoppedUnit(command, WEB_SERVER_UNITS) ?? {};
  return unit === undefined ? undefined : `"${program} ${action} ${unit}" would stop the web server.`;
}
