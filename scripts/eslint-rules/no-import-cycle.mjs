// ESLint rule `mpiscope/no-import-cycle`: no file of a folder imports, directly or through other files of the
// same folder, a file that imports it back — type-only imports included.
//
// Why a rule of our own: eslint-plugin-import-x's `no-cycle` (and eslint-plugin-import's) skips `import type`
// declarations, and the cycles the engine had were exactly those: engine-state.ts imported every subsystem's
// class, and each subsystem imported `type EngineState` back, so every check could read and change all the
// state. A type-only cycle is harmless at run time but not in the design, which is what this rule guards.
//
// Imports are read with TypeScript's own pre-processor (ts.preProcessFile: every import, export-from and
// import() of a file, type-only ones included) and resolved as the engine writes them: relative paths
// without extension, to FILE.ts or FILE/index.ts. Only files under the folder given as `root` are followed.
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** file → { mtimeMs, imports: [{ spec, target }] } for the lifetime of one ESLint process. */
const cache = new Map();

function resolveSpec(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, `${base}/index.ts`, base]) {
    try {
      if (statSync(candidate).isFile() && candidate.endsWith('.ts')) return candidate;
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

function importsOf(file) {
  let mtimeMs;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const hit = cache.get(file);
  if (hit !== undefined && hit.mtimeMs === mtimeMs) return hit.imports;
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const imports = [];
  for (const { fileName } of info.importedFiles) {
    const target = resolveSpec(file, fileName);
    if (target !== undefined) imports.push({ spec: fileName, target });
  }
  cache.set(file, { mtimeMs, imports });
  return imports;
}

/** A path of imports from `start` back to `goal` inside `root`, or undefined (breadth first: the shortest). */
function pathBack(start, goal, root) {
  const parent = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const { target } of importsOf(file)) {
      if (!target.startsWith(root) || parent.has(target)) continue;
      parent.set(target, file);
      if (target === goal) {
        const path = [];
        for (let f = target; f !== undefined; f = parent.get(f)) path.unshift(f);
        return path;
      }
      queue.push(target);
    }
  }
  return undefined;
}

export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid import cycles (type-only imports included) inside a folder' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' } },
        required: ['root'],
        additionalProperties: false,
      },
    ],
    messages: { cycle: 'Import cycle: {{path}}. Make the dependency go one way (see the folder README).' },
  },
  create(context) {
    const root = resolve(context.cwd, context.options[0].root) + '/';
    const file = context.filename;
    if (!file.startsWith(root)) return {};
    const report = (node, spec) => {
      const target = resolveSpec(file, spec);
      if (target === undefined || !target.startsWith(root)) return;
      const back = pathBack(target, file, root);
      if (back === undefined) return;
      const path = [file, ...back].map((f) => relative(root, f)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { path } });
    };
    const fromSource = (node) => {
      if (node.source && typeof node.source.value === 'string') report(node, node.source.value);
    };
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: fromSource,
    };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
