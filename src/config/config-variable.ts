import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';

/** Unit of a configuration variable's value, printed in docs/configuration.md. */
export type ConfigUnit = 'ms' | 's' | 'bytes' | 'chars' | 'count' | 'url' | 'path' | 'list' | 'flag' | 'text' | 'port';

/**
 * What one environment variable means, declared beside the code that reads it (DESIGN.md, "Config lives with the
 * feature that reads it"). The validation stays on class-validator decorators of the same property; its default is the
 * property initializer (or `defaultText` when the default is derived from another variable).
 */
export interface ConfigVariableMetadata {
  /** Section of docs/configuration.md, e.g. "Chat platform". */
  group: string;
  /** One line: what the variable does and what happens at its limit. */
  description: string;
  unit?: ConfigUnit;
  /** Shown instead of the initializer, for derived defaults (`http://localhost:$PORT`). */
  defaultText?: string;
  /** A credential: its value is never printed, logged or returned. */
  secret?: boolean;
}

/** One documented variable, as {@link describeConfiguration} lists it. */
export interface DescribedVariable extends ConfigVariableMetadata {
  name: string;
  wing: string;
  /** The default as text (`unset` when there is none, `''` for an empty list or text). */
  defaultValue: string;
  /** Accepted values derived from the validators: `1..65535`, `one of: a, b`, `≥ 1024`, `≥ 16 chars`. */
  allowed: string;
  /** The default in words when it is a round size or duration (`16 MiB`, `12 h`). */
  readable?: string;
}

const METADATA_KEY = Symbol('atrium:config-variables');

/**
 * Declares one environment variable on a wing's variables class. Every property of such a class must carry it: the
 * loader refuses an undocumented variable at start-up, so docs/configuration.md can't fall behind the code.
 */
export function ConfigVariable(metadata: ConfigVariableMetadata): PropertyDecorator {
  return (target, property) => {
    const owner = target.constructor;
    const known: Map<string, ConfigVariableMetadata> = Reflect.getOwnMetadata(METADATA_KEY, owner) ?? new Map();
    known.set(String(property), metadata);
    Reflect.defineMetadata(METADATA_KEY, known, owner);
  };
}

/** Resolved core values every wing may derive its defaults from. */
export interface ConfigBase {
  port: number;
  dataDir: string;
}

/**
 * A wing's (or the shared core's) configuration: the class of its environment variables and how they become its slice
 * of {@link import('./app-config').AppConfig}.
 */
export interface ConfigDeclaration<Vars extends object = object, Slice extends object = object> {
  /** `core`, `chat`, `deploy`, `evaluation`. */
  wing: string;
  variables: new () => Vars;
  /** Cross-variable rules; each returned line is `NAME: problem`. */
  check?: (vars: Vars) => string[];
  /** Builds the typed slice (absolute paths, derived defaults). */
  resolve: (vars: Vars, base: ConfigBase) => Slice;
}

/** Thrown at start-up when an environment variable is invalid; the message names each bad variable. */
export class ConfigurationError extends Error {}

/** Identity helper that keeps the slice type of a declaration. */
export function declareConfig<Vars extends object, Slice extends object>(declaration: ConfigDeclaration<Vars, Slice>): ConfigDeclaration<Vars, Slice> {
  return declaration;
}

/**
 * Types one slice of a `resolve()` by its interface, so keys the interface marks optional (`issuer?: string`) stay
 * optional in AppConfig instead of becoming `issuer: string | undefined`; the literal is still checked against it.
 */
export const typedSlice = <Slice>(value: Slice): Slice => value;

/** `'true'`/`'false'` from the environment to a boolean; anything else stays and fails `@IsBoolean` (class-transformer `@Transform` for flag variables). */
export const toFlag = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** Splits `a, b,,c` into `['a','b','c']` (class-transformer `@Transform` for list variables). */
export const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

function variablesOf(declaration: ConfigDeclaration): Map<string, ConfigVariableMetadata> {
  return Reflect.getOwnMetadata(METADATA_KEY, declaration.variables) ?? new Map();
}

/**
 * Validates `env` against every declaration and merges their slices into one object.
 * @param env usually `process.env`; empty strings count as unset
 * @param declarations the core first (it gives `port` and `dataDir`), then each wing
 * @throws ConfigurationError naming every invalid variable, each broken cross-variable rule (`check`), a variable
 *   declared twice or a property without metadata
 * @throws Error when two declarations resolve the same slice key, or the first one gives no `port`/`dataDir` (programming
 *   errors, not operator input)
 */
export function loadConfiguration<Config>(env: NodeJS.ProcessEnv, declarations: readonly ConfigDeclaration<any, any>[]): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const problems: string[] = [];
  const seen = new Set<string>();
  const parsed = declarations.map((declaration) => {
    const vars = plainToInstance(declaration.variables, present, { exposeDefaultValues: true, excludeExtraneousValues: false });
    const documented = variablesOf(declaration);
    const validated = getMetadataStorage()
      .getTargetValidationMetadatas(declaration.variables, '', true, false)
      .map((rule) => rule.propertyName);
    for (const name of new Set([...Object.keys(new declaration.variables()), ...validated])) {
      if (!documented.has(name)) problems.push(`${name}: declared without @ConfigVariable (${declaration.wing})`);
    }
    for (const name of documented.keys()) {
      if (seen.has(name)) problems.push(`${name}: declared twice`);
      seen.add(name);
    }
    for (const error of validateSync(vars, { whitelist: false, forbidUnknownValues: false })) {
      if (documented.has(error.property)) problems.push(`${error.property}: ${Object.values(error.constraints ?? {}).join('; ')}`);
    }
    return { declaration, vars };
  });
  if (problems.length === 0) {
    for (const { declaration, vars } of parsed) problems.push(...(declaration.check?.(vars) ?? []));
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration:\n  ${[...new Set(problems)].join('\n  ')}`);
  let base: ConfigBase | undefined;
  const merged: Record<string, unknown> = {};
  const owners = new Map<string, string>();
  for (const { declaration, vars } of parsed) {
    const slice = declaration.resolve(vars, base ?? ({ port: 0, dataDir: '' } as ConfigBase));
    if (!base) {
      // The wings' derived defaults (`http://localhost:$PORT`, `$DATA_DIR/...`) read these from the first slice.
      base = slice as unknown as ConfigBase;
      if (typeof base.port !== 'number' || typeof base.dataDir !== 'string') throw new Error(`the first configuration declaration (${declaration.wing}) must resolve port and dataDir`);
    }
    // Two declarations returning the same key would silently overwrite each other's slice.
    for (const key of Object.keys(slice)) {
      const owner = owners.get(key);
      if (owner !== undefined) throw new Error(`configuration slice ${key} is resolved by both ${owner} and ${declaration.wing}`);
      owners.set(key, declaration.wing);
    }
    Object.assign(merged, slice);
  }
  return merged as Config;
}

function allowedOf(variables: Function, property: string): string {
  const rules = getMetadataStorage()
    .getTargetValidationMetadatas(variables, '', true, false)
    .filter((rule) => rule.propertyName === property);
  const find = (name: string) => rules.find((rule) => rule.name === name || rule.type === name);
  const constraint = (name: string) => find(name)?.constraints?.[0];
  const min = constraint('min');
  const max = constraint('max');
  const choices = constraint('isIn');
  const minLength = constraint('minLength');
  if (Array.isArray(choices)) return `${find('isIn')?.each ? 'each one of' : 'one of'}: ${choices.join(', ')}`;
  if (min !== undefined && max !== undefined) return `${min}..${max}`;
  if (min !== undefined) return `≥ ${min}`;
  if (max !== undefined) return `≤ ${max}`;
  if (minLength !== undefined) return `${find('minLength')?.each ? 'each ' : ''}≥ ${minLength} chars`;
  if (rules.some((rule) => rule.name === 'isUrl')) return 'URL';
  if (rules.some((rule) => rule.name === 'isInt')) return 'integer';
  return '';
}

const BINARY_UNITS: [number, string][] = [[1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
const DURATION_UNITS: [number, string][] = [[3_600_000, 'h'], [60_000, 'min'], [1000, 's']];
const SECOND_UNITS: [number, string][] = [[3600, 'h'], [60, 'min']];

/** `16777216` bytes → `16 MiB`, `43200000` ms → `12 h`, `3600` s → `1 h`: a readable form of a round default, or undefined. */
export function readableQuantity(value: unknown, unit: ConfigUnit | undefined): string | undefined {
  const table = unit === 'bytes' ? BINARY_UNITS : unit === 'ms' ? DURATION_UNITS : unit === 's' ? SECOND_UNITS : undefined;
  if (typeof value !== 'number' || !table) return undefined;
  const match = table.find(([size]) => value >= size && value % size === 0);
  return match && `${value / match[0]} ${match[1]}`;
}

/**
 * Lists every declared variable with its metadata, default and accepted values, in declaration order (for the
 * generated docs/configuration.md).
 */
export function describeConfiguration(declarations: readonly ConfigDeclaration<any, any>[]): DescribedVariable[] {
  return declarations.flatMap((declaration) => {
    const defaults = new declaration.variables() as Record<string, unknown>;
    return [...variablesOf(declaration)].map(([name, metadata]) => {
      const value = defaults[name];
      const defaultValue = metadata.defaultText ?? (value === undefined ? 'unset' : Array.isArray(value) ? value.join(',') : String(value));
      const readable = metadata.defaultText === undefined ? readableQuantity(value, metadata.unit) : undefined;
      return { name, wing: declaration.wing, ...metadata, defaultValue, allowed: allowedOf(declaration.variables, name), ...(readable && { readable }) };
    });
  });
}

/** The default column: a value in code style (plus its readable size or duration), or prose such as `generated at first start`. */
function defaultCell(row: DescribedVariable): string {
  if (row.defaultValue === 'unset') return 'unset';
  if (row.defaultValue === '') return 'empty';
  if (row.defaultText !== undefined && /\s/.test(row.defaultText)) return row.defaultText;
  return row.readable ? `\`${row.defaultValue}\` (${row.readable})` : `\`${row.defaultValue}\``;
}

/**
 * Renders docs/configuration.md from the declarations: one section per wing and group, one table row per variable.
 * @returns Markdown text ending in a newline
 */
export function renderConfigurationDoc(declarations: readonly ConfigDeclaration<any, any>[]): string {
  const rows = describeConfiguration(declarations);
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated by `npm run docs:config` from the @ConfigVariable declarations; a test fails when this page and the code differ. Do not edit by hand. -->',
    '',
    'Atrium reads its configuration from environment variables, validated at start-up: a wrong value stops the start with a message naming the variable. An empty value counts as unset. Sizes are bytes, durations milliseconds unless the unit says otherwise. Secrets are never logged or returned.',
    '',
  ];
  const wingTitles: Record<string, string> = { core: 'Core', chat: 'Chat management service', deploy: 'Deployment gateway', evaluation: 'Evaluation platform' };
  const wings = [...new Set(rows.map((row) => row.wing))];
  const groupsOf = (wing: string) => [...new Set(rows.filter((row) => row.wing === wing).map((row) => row.group))];
  // GitHub's heading anchors, in heading order: lower case, punctuation dropped, spaces to dashes, `-1`… on repeats.
  const used = new Map<string, number>();
  const anchor = (title: string) => {
    const slug = title.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const count = used.get(slug) ?? 0;
    used.set(slug, count + 1);
    return `#${count === 0 ? slug : `${slug}-${count}`}`;
  };
  for (const wing of wings) {
    const title = wingTitles[wing] ?? wing;
    const wingAnchor = anchor(title);
    lines.push(`- [${title}](${wingAnchor}): ${groupsOf(wing).map((group) => `[${group}](${anchor(group)})`).join(' · ')}`);
  }
  lines.push('');
  for (const wing of wings) {
    lines.push(`## ${wingTitles[wing] ?? wing}`, '');
    const ofWing = rows.filter((row) => row.wing === wing);
    for (const group of [...new Set(ofWing.map((row) => row.group))]) {
      lines.push(`### ${group}`, '', '| variable | default | unit | accepted | meaning |', '|---|---|---|---|---|');
      for (const row of ofWing.filter((candidate) => candidate.group === group)) {
        const meaning = row.secret ? `${row.description} (secret)` : row.description;
        lines.push(`| \`${row.name}\` | ${cell(defaultCell(row))} | ${row.unit ?? ''} | ${cell(row.allowed)} | ${cell(meaning)} |`);
      }
      lines.push('');
    }
  }
  return lines.join('\n');
}

/**
 * Renders `.env.example` from the declarations: every variable commented out with its default, so a copy changes
 * nothing until a line is uncommented. Secrets and derived defaults (`$DATA_DIR/files`, `generated at first start`)
 * get an empty value, their default named in the comment.
 * @returns dotenv text ending in a newline
 */
export function renderEnvExample(declarations: readonly ConfigDeclaration<any, any>[]): string {
  const rows = describeConfiguration(declarations);
  const lines = [
    '# Atrium configuration. Every variable is optional: each line below is commented out and shows the default.',
    '# Generated by `npm run docs:config` from the @ConfigVariable declarations; the full reference is docs/configuration.md.',
  ];
  let section = '';
  for (const row of rows) {
    const title = `${row.wing} / ${row.group}`;
    if (title !== section) lines.push('', `## ${row.group}`);
    section = title;
    // Derived defaults (`$DATA_DIR/files`) go in the comment: an uncommented `$VAR` would not be expanded by Atrium.
    const literal = row.defaultText === undefined && row.defaultValue !== 'unset' && !row.secret;
    const derived = row.defaultText !== undefined ? `; default: ${row.defaultText}` : '';
    lines.push(`# ${row.description.replace(/\n/g, ' ')}${derived}${row.secret ? ' (secret)' : ''}`, `# ${row.name}=${literal ? row.defaultValue : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
