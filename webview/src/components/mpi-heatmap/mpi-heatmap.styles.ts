import { css } from 'lit';

export const heatmapStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    gap: 6px;
    height: 100%;
    min-height: 320px;
    font: 12px var(--vscode-font-family, system-ui, sans-serif);
    color: var(--vscode-foreground, #cccccc);
    background: var(--vscode-editor-background, #1e1e1e);
  }
  .bar {
    display: flex;
    flex-wrap: wrap;
    gap: 10px;
    align-items: center;
    padding: 4px 2px;
  }
  label {
    display: inline-flex;
    gap: 4px;
    align-items: center;
  }
  select,
  button {
    font: inherit;
    color: var(--vscode-dropdown-foreground, #cccccc);
    background: var(--vscode-dropdown-background, #3c3c3c);
    border: 1px solid var(--vscode-dropdown-border, #3c3c3c);
    padding: 1px 4px;
  }
  button:disabled {
    opacity: 0.5;
  }
  .maps {
    flex: 1;
    display: flex;
    gap: 12px;
    min-height: 240px;
  }
  .map {
    flex: 1;
    display: flex;
    flex-direction: column;
    min-width: 200px;
  }
  .title {
    color: var(--vscode-descriptionForeground, #9d9d9d);
    padding-bottom: 2px;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .box {
    position: relative;
    flex: 1;
  }
  .box canvas {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
    cursor: crosshair;
  }
  .legend {
    display: flex;
    gap: 6px;
    align-items: center;
    color: var(--vscode-descriptionForeground, #9d9d9d);
  }
  .ramp {
    width: 160px;
    height: 10px;
    border: 1px solid var(--vscode-panel-border, #444);
  }
  .readout {
    min-height: 1.4em;
    font-family: var(--vscode-editor-font-family, monospace);
  }
`;
