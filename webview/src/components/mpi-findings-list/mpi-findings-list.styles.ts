import { css } from 'lit';

export const findingsListStyles = css`
  :host {
    display: block;
    overflow: auto;
    font: 13px var(--vscode-font-family, system-ui, sans-serif);
    color: var(--vscode-foreground, #cccccc);
  }
  ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  li {
    padding: 5px 10px 6px;
    border-left: 3px solid transparent;
    cursor: pointer;
    outline: none;
  }
  li:hover {
    background: var(--vscode-list-hoverBackground, #2a2d2e);
  }
  li[aria-selected='true'] {
    background: var(--vscode-list-inactiveSelectionBackground, #37373d);
    border-left-color: var(--vscode-focusBorder, #0078d4);
  }
  li:focus-visible {
    outline: 1px solid var(--vscode-focusBorder, #0078d4);
    outline-offset: -1px;
  }
  .head {
    display: flex;
    gap: 8px;
    align-items: baseline;
  }
  .sev {
    font-weight: 600;
    text-transform: uppercase;
    font-size: 10px;
    letter-spacing: 0.04em;
  }
  .sev.error {
    color: var(--vscode-errorForeground, #f85149);
  }
  .sev.warning {
    color: var(--vscode-editorWarning-foreground, #cca700);
  }
  .sev.note {
    color: var(--vscode-editorInfo-foreground, #3794ff);
  }
  .kind {
    font-family: var(--vscode-editor-font-family, monospace);
    font-weight: 600;
  }
  .message {
    margin-top: 2px;
    color: var(--vscode-foreground, #cccccc);
  }
  .loc {
    margin: 3px 0 0 12px;
    color: var(--vscode-descriptionForeground, #9d9d9d);
    font-size: 12px;
  }
  .loc a {
    color: var(--vscode-textLink-foreground, #4daafc);
    text-decoration: none;
    font-family: var(--vscode-editor-font-family, monospace);
  }
  .loc a:hover {
    text-decoration: underline;
  }
  .empty {
    padding: 10px;
    color: var(--vscode-descriptionForeground, #9d9d9d);
  }
`;
