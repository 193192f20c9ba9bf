import { css } from 'lit';

export const appStyles = css`
  :host {
    display: grid;
    grid-template-rows: auto minmax(200px, 1fr) minmax(140px, 34%);
    height: 100vh;
    font: 13px var(--vscode-font-family, system-ui, sans-serif);
    color: var(--vscode-foreground, #cccccc);
    background: var(--vscode-editor-background, #1f1f1f);
  }
  header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px 18px;
    padding: 6px 12px;
    border-bottom: 1px solid var(--vscode-panel-border, #2b2b2b);
    background: var(--vscode-sideBar-background, #181818);
  }
  h1 {
    margin: 0;
    font-size: 13px;
    font-weight: 600;
  }
  .stats {
    color: var(--vscode-descriptionForeground, #9d9d9d);
  }
  .stats .bad {
    color: var(--vscode-errorForeground, #f85149);
    font-weight: 600;
  }
  .legend {
    display: flex;
    gap: 12px;
    margin: 0;
    padding: 0;
    list-style: none;
    color: var(--vscode-descriptionForeground, #9d9d9d);
    font-size: 12px;
  }
  .legend li {
    display: flex;
    align-items: center;
    gap: 5px;
  }
  .chip {
    width: 14px;
    height: 10px;
    border-radius: 2px;
  }
  .chip.blocked {
    background: repeating-linear-gradient(
      135deg,
      var(--vscode-charts-red, #f14c4c) 0 2px,
      transparent 2px 5px
    );
    outline: 1px solid var(--vscode-charts-red, #f14c4c);
  }
  .chip.arrow {
    height: 2px;
    background: var(--vscode-charts-orange, #d18616);
  }
  .spacer {
    flex: 1;
  }
  .find {
    display: flex;
    align-items: center;
    gap: 6px;
  }
  .find input {
    font: inherit;
    width: 190px;
    padding: 2px 6px;
    color: var(--vscode-input-foreground, #cccccc);
    background: var(--vscode-input-background, #313131);
    border: 1px solid var(--vscode-input-border, #3c3c3c);
    border-radius: 2px;
  }
  .find input:focus {
    outline: 1px solid var(--vscode-focusBorder, #0078d4);
    outline-offset: -1px;
  }
  .find .count {
    color: var(--vscode-descriptionForeground, #9d9d9d);
    font-size: 12px;
    min-width: 5em;
  }
  button[aria-pressed='false'] {
    color: var(--vscode-inputValidation-warningForeground, var(--vscode-foreground, #cccccc));
    border-color: var(--vscode-inputValidation-warningBorder, #b89500);
  }
  button {
    font: inherit;
    padding: 2px 10px;
    color: var(--vscode-button-secondaryForeground, #cccccc);
    background: var(--vscode-button-secondaryBackground, #313131);
    border: 1px solid var(--vscode-button-border, transparent);
    border-radius: 2px;
    cursor: pointer;
  }
  button:hover {
    background: var(--vscode-button-secondaryHoverBackground, #3c3c3c);
  }
  button:focus-visible {
    outline: 1px solid var(--vscode-focusBorder, #0078d4);
  }
  .hint {
    color: var(--vscode-descriptionForeground, #9d9d9d);
    font-size: 11px;
  }
  mpi-timeline {
    min-height: 0;
  }
  .bottom {
    display: grid;
    grid-template-columns: minmax(0, 1fr) minmax(200px, 300px);
    min-height: 0;
    border-top: 1px solid var(--vscode-panel-border, #2b2b2b);
  }
  section {
    display: flex;
    flex-direction: column;
    min-height: 0;
    padding: 0;
  }
  section + section {
    border-left: 1px solid var(--vscode-panel-border, #2b2b2b);
    padding: 0 10px 8px;
  }
  h2 {
    margin: 0;
    padding: 6px 10px 4px;
    font-size: 11px;
    font-weight: 600;
    text-transform: uppercase;
    letter-spacing: 0.05em;
    color: var(--vscode-descriptionForeground, #9d9d9d);
  }
  section + section h2 {
    padding-left: 0;
  }
  mpi-findings-list,
  mpi-comm-matrix {
    flex: 1;
    min-height: 0;
  }
`;
