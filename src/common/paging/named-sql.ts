/** What {@link NamedSql.bind} needs of TypeORM's PostgreSQL driver. */
export interface ParameterStyle {
  parametersPrefix: string;
  createParameter(name: string, index: number): string;
}

/** A named parameter in the text: `:name`, or `:...name` (an array spread into one placeholder per element). */
interface NamedParameter {
  full: string;
  spread: boolean;
  key: string;
}

/** Bound texts a {@link NamedSql} keeps (a spread's every length is a text of its own). */
const MAX_KEPT_TEXTS = 64;

/** TypeORM's pattern of a named parameter (PostgresDriver.escapeQueryWithParameters). */
const NAMED_PARAMETER = /:(\.\.\.)?([A-Za-z0-9_.]+)/g;

/**
 * A statement with TypeORM's named parameters (`:name`), split at its parameters once, so binding it per request
 * does not scan the SQL text again (issue 14 item 1: a kept list statement is 1–3 KB of SQL, scanned twice per
 * request by the driver's regular expression).
 */
export class NamedSql {
  private readonly parts: Array<string | NamedParameter> = [];
  /**
   * Texts bound before, by what their parameters rendered as: a bind of the same shape returns the same string, so the
   * maps keyed by a statement's text (prepared statement names, guarded-pg.ts) hash its 1–3 KB once, not per request.
   */
  private readonly texts = new Map<string, string>();

  /** @param sql SQL text with `:name` / `:...name` parameters, as a query builder renders it */
  constructor(readonly sql: string) {
    let at = 0;
    for (const match of sql.matchAll(NAMED_PARAMETER)) {
      if (match.index > at) this.parts.push(sql.slice(at, match.index));
      this.parts.push({ full: match[0], spread: match[1] !== undefined, key: match[2] });
      at = match.index + match[0].length;
    }
    if (at < sql.length) this.parts.push(sql.slice(at));
  }

  /**
   * The statement's text with `$n` placeholders and its values: exactly what TypeORM's
   * `PostgresDriver.escapeQueryWithParameters(sql, parameters)` answers (a name that is not among `parameters` stays
   * as written, a repeated name reuses its placeholder, an array after `:...` takes one per element, a function
   * value is called for its SQL text).
   * @param driver the PostgreSQL driver (its placeholder style)
   * @param parameters values by name
   */
  bind(driver: ParameterStyle, parameters: Record<string, unknown> | undefined): [string, unknown[]] {
    const values: unknown[] = [];
    if (!parameters || Object.keys(parameters).length === 0) return [this.sql, values];
    const indexes = new Map<string, number>();
    // What each parameter renders as ($n, a spread's list, a function's SQL, or itself when not given): the text's shape.
    const pieces: string[] = [];
    for (const part of this.parts) {
      if (typeof part === 'string') continue;
      const { full, spread, key } = part;
      if (!Object.prototype.hasOwnProperty.call(parameters, key)) pieces.push(full);
      else if (indexes.has(key)) pieces.push(driver.parametersPrefix + indexes.get(key));
      else {
        const value = parameters[key];
        if (spread) {
          pieces.push(
            (value as unknown[])
              .map((element) => {
                values.push(element);
                return driver.createParameter(key, values.length - 1);
              })
              .join(', '),
          );
        } else if (typeof value === 'function') pieces.push((value as () => string)());
        else {
          values.push(value);
          indexes.set(key, values.length);
          pieces.push(driver.createParameter(key, values.length - 1));
        }
      }
    }
    const shape = pieces.join('\u0000');
    let text = this.texts.get(shape);
    if (text === undefined) {
      text = '';
      let at = 0;
      for (const part of this.parts) text += typeof part === 'string' ? part : pieces[at++];
      if (this.texts.size < MAX_KEPT_TEXTS) this.texts.set(shape, text);
    }
    return [text, values];
  }
}
