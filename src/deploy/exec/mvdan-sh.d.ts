/**
 * Minimal types for `mvdan-sh` 0.10 (GopherJS build of mvdan.cc/sh/v3/syntax), covering only what the exec command
 * policy reads (deployment-gateway.md, Errors: blocked commands). Node fields mirror the Go structs; a nil pointer
 * arrives as `null`. `Parser.Parse` throws a {@link syntax.ParseError} on invalid input.
 */
declare module 'mvdan-sh' {
  namespace syntax {
    /** A source position; `Offset()` counts UTF-8 bytes, not UTF-16 code units. */
    interface Pos {
      Offset(): number;
      Line(): number;
      Col(): number;
    }

    /** Any syntax node; narrow it with {@link NodeType}. */
    interface Node {
      Pos(): Pos;
      End(): Pos;
    }

    interface File extends Node {
      Name: string;
      Stmts: Stmt[];
    }

    /** One command with its redirections; `Cmd` is null for a redirection-only statement. */
    interface Stmt extends Node {
      Cmd: Node | null;
      Redirs: Redirect[];
      Negated: boolean;
      Background: boolean;
    }

    /** A simple command: leading `NAME=value` assignments, then the words. */
    interface CallExpr extends Node {
      Assigns: Node[];
      Args: Word[];
    }

    /** `X op Y`; `Op` is a Go token number (10 `&&`, 11 `||`, 12 `|`, 13 `|&`). */
    interface BinaryCmd extends Node {
      Op: number;
      X: Stmt;
      Y: Stmt;
    }

    /** `Op` is a Go token number (e.g. 56 `<`, 61 `<<`, 62 `<<-`, 63 `<<<`); `Hdoc` holds a heredoc body. */
    interface Redirect extends Node {
      Op: number;
      N: Lit | null;
      Word: Word | null;
      Hdoc: Word | null;
    }

    /** A shell word made of parts: Lit, SglQuoted, DblQuoted, ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob. */
    interface Word extends Node {
      Parts: Node[];
    }

    /** Unquoted literal text, backslash escapes still in place. */
    interface Lit extends Node {
      Value: string;
    }

    /** `'…'`, or `$'…'` when `Dollar` (escapes still in `Value`). */
    interface SglQuoted extends Node {
      Value: string;
      Dollar: boolean;
    }

    /** `"…"`, or `$"…"` when `Dollar`. */
    interface DblQuoted extends Node {
      Parts: Node[];
      Dollar: boolean;
    }

    /** `$name` / `${name…}`; the optional pieces are null when absent. */
    interface ParamExp extends Node {
      Short: boolean;
      Excl: boolean;
      Length: boolean;
      Width: boolean;
      Param: Lit | null;
      Index: Node | null;
      Slice: object | null;
      Repl: object | null;
      Exp: object | null;
    }

    /** `$(…)` or backticks. */
    interface CmdSubst extends Node {
      Stmts: Stmt[];
      Backquotes: boolean;
    }

    /** `<(…)` (Op 66) or `>(…)` (Op 67). */
    interface ProcSubst extends Node {
      Op: number;
      Stmts: Stmt[];
    }

    /** What `Parse` throws; `Error()` gives "name:line:col: message". */
    interface ParseError {
      Error(): string;
      Filename: string;
      Text: string;
      Incomplete: boolean;
    }

    interface Parser {
      /** Parses a whole script; throws a ParseError. */
      Parse(source: string, name: string): File;
    }

    /** Creates a Bash-dialect parser. */
    function NewParser(): Parser;
    /** The Go type name without package, e.g. "CallExpr". */
    function NodeType(node: Node): string;
  }
}
