import * as vscode from 'vscode';
import { activeSource, programOf } from './program-of-file';

export const TASK_TYPE = 'mpicc';

/** The task definition of package.json contributes.taskDefinitions (type "mpicc"). */
interface MpiccTaskDefinition extends vscode.TaskDefinition {
  file: string;
  output?: string;
  compiler?: string;
}

/** `mpicc -g -O0 FILE -o OUTPUT`: debug info so every finding has a source line, no optimisation so lines are exact. */
export function buildTask(
  definition: MpiccTaskDefinition,
  scope: vscode.TaskScope | vscode.WorkspaceFolder,
): vscode.Task {
  const compiler = definition.compiler ?? (/\.(cc|cpp|cxx)$/.test(definition.file) ? 'mpicxx' : 'mpicc');
  const output = definition.output ?? programOf(definition.file);
  const task = new vscode.Task(
    definition,
    scope,
    `build ${vscode.workspace.asRelativePath(definition.file)}`,
    TASK_TYPE,
    new vscode.ProcessExecution(compiler, ['-g', '-O0', definition.file, '-o', output]),
    '$gcc',
  );
  task.group = vscode.TaskGroup.Build;
  return task;
}

export function taskForSource(source: vscode.Uri): vscode.Task {
  const folder = vscode.workspace.getWorkspaceFolder(source);
  return buildTask({ type: TASK_TYPE, file: source.fsPath }, folder ?? vscode.TaskScope.Workspace);
}

/** Runs a build task and resolves with its exit code (undefined when it could not tell). */
export async function runBuild(task: vscode.Task): Promise<number | undefined> {
  const execution = await vscode.tasks.executeTask(task);
  return new Promise((resolve) => {
    const done = vscode.tasks.onDidEndTaskProcess((e) => {
      if (e.execution === execution) {
        done.dispose();
        resolve(e.exitCode);
      }
    });
  });
}

/**
 * Provides "mpicc: build FILE" for the active C file, and resolves `"type": "mpicc"` tasks written in
 * tasks.json, so a launch configuration can name one as its preLaunchTask.
 */
export function activate(ctx: vscode.ExtensionContext): void {
  ctx.subscriptions.push(
    vscode.tasks.registerTaskProvider(TASK_TYPE, {
      provideTasks: () => {
        const source = activeSource();
        return source ? [taskForSource(source)] : [];
      },
      resolveTask: (task) => {
        const definition = task.definition as MpiccTaskDefinition;
        if (typeof definition.file !== 'string') return undefined;
        return buildTask(definition, task.scope ?? vscode.TaskScope.Workspace);
      },
    }),
  );
}
