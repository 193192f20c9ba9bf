/** Types of halo-trace.mjs for vscode-open.ts. */
export function recordHaloTrace(root: string, work: string, np: string, iterations: string): string;
