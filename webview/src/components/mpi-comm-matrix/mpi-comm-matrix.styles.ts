import { css } from 'lit';

export const commMatrixStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    min-width: 180px;
    font: 12px var(--vscode-font-family, system-ui, sans-serif);
    color: var(--vscode-descriptionForeground, #9d9d9d);
  }
  .box {
    position: relative;
    flex: 1;
    min-height: 120px;
  }
  canvas {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
  }
  .readout {
    min-height: 1.4em;
    padding: 4px 2px 0;
    font-family: var(--vscode-editor-font-family, monospace);
    color: var(--vscode-foreground, #cccccc);
  }
`;
