import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { runStatusNotification, runStatusRequest, type RunStatus } from './lsp-ext';

/** "$(pulse) mpiscope: 4 ranks, 2 blocked, 1 finding" — the job at a glance; click to see the findings. */
export function statusText(s: RunStatus): string {
  const findings = `${s.findings} finding${s.findings === 1 ? '' : 's'}`;
  switch (s.state) {
    case 'idle':
      return '$(debug-alt) mpiscope';
    case 'running':
      return `$(sync~spin) mpiscope: ${s.ranks} ranks${s.blocked > 0 ? `, ${s.blocked} blocked` : ''}, ${findings}`;
    case 'paused':
      return `$(debug-pause) mpiscope: paused, ${findings}`;
    case 'ended': {
      // A check that did not run is said here too (the tooltip names them): never silently off.
      const partial = (s.notChecked?.length ?? 0) > 0 ? ', not all checked' : '';
      const icon = s.findings > 0 || partial ? 'warning' : 'check';
      return `$(${icon}) mpiscope: ${s.outcome ?? 'ended'}, ${findings}${partial}`;
    }
  }
}

export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  const item = vscode.window.createStatusBarItem('mpiscope.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'mpiscope job';
  item.command = 'workbench.actions.view.problems';
  const show = (s: RunStatus): void => {
    item.text = statusText(s);
    const notChecked = s.state === 'ended' ? (s.notChecked ?? []) : [];
    item.tooltip = s.program
      ? [`${s.program}: ${s.state}`, ...notChecked.map((l) => `Not checked: ${l}`)].join('\n')
      : 'mpiscope: no MPI job has run yet';
    item.backgroundColor =
      s.state === 'ended' && (s.findings > 0 || notChecked.length > 0)
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    item.show();
  };
  ctx.subscriptions.push(item, client.onNotification(runStatusNotification, show));
  void client.sendRequest(runStatusRequest).then(show);
}
