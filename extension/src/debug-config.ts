import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { runBuild, taskForSource } from './build-task';
import { debugAdapterEndpointRequest } from './lsp-ext';
import { activeSource, MPI_DEBUG_TYPE, programOf } from './program-of-file';

const SOURCE_EXTENSIONS = ['.c', '.cpp', '.cc', '.cxx'];

/** The launch configuration F5 uses when there is no launch.json: the active C file's binary on 2 ranks. */
export function activeFileConfiguration(): vscode.DebugConfiguration | undefined {
  const source = activeSource();
  if (!source) return undefined;
  return {
    type: MPI_DEBUG_TYPE,
    request: 'launch',
    name: 'mpiscope: active file',
    program: programOf(source.fsPath),
    np: 2,
    stopOnFinding: true,
  };
}

/** The source file next to a program (prog → prog.c), when there is one. */
function sourceOf(program: string): string | undefined {
  return SOURCE_EXTENSIONS.map((ext) => program + ext).find((s) => existsSync(s));
}

/** Builds the program from its source when it is missing or older than the source; false when the build failed. */
async function ensureBuilt(program: string): Promise<boolean> {
  const source = sourceOf(program);
  if (!source) return true;
  if (existsSync(program) && statSync(program).mtimeMs >= statSync(source).mtimeMs) return true;
  const code = await runBuild(taskForSource(vscode.Uri.file(source)));
  if (code === 0) return true;
  void vscode.window.showErrorMessage(
    `mpiscope: building ${source} with mpicc failed (see the terminal); fix it and run again.`,
  );
  return false;
}

class MpiConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly client: LanguageClient) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [
      {
        type: MPI_DEBUG_TYPE,
        request: 'launch',
        name: 'mpiscope: run with 2 ranks',
        program: '${fileDirname}/${fileBasenameNoExtension}',
        np: 2,
        stopOnFinding: true,
      },
    ];
  }

  resolveDebugConfiguration(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.DebugConfiguration | undefined {
    // F5 with no launch.json sends an empty configuration.
    if (!config.type && !config.request && !config.name) {
      const fromFile = activeFileConfiguration();
      if (!fromFile) {
        void vscode.window.showErrorMessage(
          'mpiscope: open the C file of your MPI program, or add an "mpi" launch configuration.',
        );
        return undefined;
      }
      config = fromFile;
    }
    config.np ??= 2;
    config.stopOnFinding ??= true;
    if (!config.program) {
      const source = activeSource();
      if (source) config.program = programOf(source.fsPath);
    }
    config.cwd ??= folder?.uri.fsPath;
    return config;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    if (typeof config.program === 'string') {
      config.cwd ??= dirname(config.program);
      // No preLaunchTask: build from the source next to the program, as F5 on a bare C file expects.
      if (!config.preLaunchTask && !(await ensureBuilt(config.program))) return undefined;
    }
    const endpoint = await this.client.sendRequest(debugAdapterEndpointRequest);
    config.__mpiscopeToken = endpoint.token;
    return config;
  }
}

class MpiAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly client: LanguageClient) {}

  async createDebugAdapterDescriptor(): Promise<vscode.DebugAdapterDescriptor> {
    // The adapter runs inside the language server, which hosts the job and publishes its findings.
    const endpoint = await this.client.sendRequest(debugAdapterEndpointRequest);
    return new vscode.DebugAdapterServer(endpoint.port, endpoint.host);
  }
}

export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  const provider = new MpiConfigurationProvider(client);
  ctx.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider(MPI_DEBUG_TYPE, provider),
    vscode.debug.registerDebugConfigurationProvider(
      MPI_DEBUG_TYPE,
      { provideDebugConfigurations: () => provider.provideDebugConfigurations() },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory(MPI_DEBUG_TYPE, new MpiAdapterFactory(client)),
  );
}
