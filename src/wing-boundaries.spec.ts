import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * Wing boundaries (issue 15 item 8, acceptance 6; DESIGN.md, "Wings meet at ports, not at internals"): a wing
 * (src/chat, src/deploy, src/evaluation) imports no other wing's folder, and the shared kernel (src/common,
 * src/config, src/database, src/jobs, src/llm) imports no wing. Only the composition roots (src/app.*, src/main.ts,
 * src/cli, this test) see every wing.
 */
const WINGS = ['chat', 'deploy', 'evaluation'] as const;
const SHARED = ['common', 'config', 'database', 'jobs', 'llm'] as const;

/**
 * Shared-kernel test files allowed to reach into a wing, each with why. Never production code.
 * - address-policy.spec.ts: one table checks every outbound use's private-network switch from the real declarations,
 *   the chat tool providers' among them.
 */
const ALLOWED: Record<string, string> = {
  'common/outbound/address-policy.spec.ts': 'chat/tool-providers/tool-providers.service',
};

/** The top folder of a path relative to src (`chat`, `common`, … or a file name for src's own files). */
function areaOf(pathInSrc: string): string {
  return pathInSrc.split('/')[0];
}

/**
 * The cross-wing imports of one file. Pure.
 * @param file path relative to src, `/`-separated (e.g. `evaluation/targets/targets.service.ts`)
 * @param source the file's text
 * @returns one `file → target` line per forbidden import (relative imports only: packages are never a wing)
 */
export function boundaryViolations(file: string, source: string): string[] {
  const area = areaOf(file);
  const isWing = (WINGS as readonly string[]).includes(area);
  const isShared = (SHARED as readonly string[]).includes(area);
  if (!isWing && !isShared) return [];
  const { importedFiles } = ts.preProcessFile(source, true, true);
  const violations: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = join(dirname(file), fileName).split(sep).join('/');
    const targetArea = areaOf(target);
    if (!(WINGS as readonly string[]).includes(targetArea) || targetArea === area) continue;
    if (ALLOWED[file] === target) continue;
    violations.push(`${file} → ${target}`);
  }
  return violations;
}

/** Every .ts file under `dir`, recursively. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('wing boundaries (issue 15 item 8, acceptance 6)', () => {
  const src = resolve(__dirname);

  it('no wing imports another wing, and the shared kernel imports no wing', () => {
    const files = tsFiles(src);
    expect(files.length).toBeGreaterThan(100);
    const violations = files.flatMap((path) => boundaryViolations(relative(src, path).split(sep).join('/'), readFileSync(path, 'utf8')));
    expect(violations).toEqual([]);
  });

  it('finds the imports it must refuse: a wing into another wing, the kernel into a wing, static, re-export, dynamic and require', () => {
    expect(boundaryViolations('evaluation/targets/targets.service.ts', "import { X } from '../../chat/sandbox/digital-staff-sandbox.service';")).toEqual([
      'evaluation/targets/targets.service.ts → chat/sandbox/digital-staff-sandbox.service',
    ]);
    expect(boundaryViolations('evaluation/evaluation.module.ts', "export { ChatModule } from '../chat/chat.module';")).toHaveLength(1);
    expect(boundaryViolations('deploy/x.ts', "const m = await import('../evaluation/runs/run-executor');")).toHaveLength(1);
    expect(boundaryViolations('chat/a/b.ts', "const m = require('../../deploy/exec/exec-sandbox.service');")).toHaveLength(1);
    expect(boundaryViolations('common/metrics/x.ts', "import type { T } from '../../evaluation/runs/run.entity';")).toHaveLength(1);
    expect(boundaryViolations('jobs/x.spec.ts', "import { Y } from '../chat/chat.module';")).toHaveLength(1);
  });

  it('lets a wing use its own folders, the shared kernel and packages, and the composition roots use every wing', () => {
    const ok = [
      "import { A } from './targets/targets.service';",
      "import { B } from '../../common/ports/digital-staff-target';",
      "import { C } from '../../jobs/jobs.module';",
      "import { Controller } from '@nestjs/common';",
      "import { D } from '../runs/run.entity';",
    ].join('\n');
    expect(boundaryViolations('evaluation/targets/x.ts', ok)).toEqual([]);
    expect(boundaryViolations('app.module.ts', "import { ChatModule } from './chat/chat.module';")).toEqual([]);
    expect(boundaryViolations('cli/eval/main.ts', "import { E } from '../../evaluation/runs/run.entity';")).toEqual([]);
  });
});
