import { css } from 'lit';

export const timelineStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    position: relative;
    min-height: 160px;
    overflow: hidden;
    background: var(--vscode-editor-background, #1f1f1f);
  }
  canvas {
    display: block;
    width: 100%;
    outline: none;
  }
  canvas.minimap {
    flex: 0 0 36px;
    height: 36px;
    cursor: pointer;
  }
  canvas.main {
    flex: 1 1 auto;
    min-height: 0;
    cursor: grab;
  }
  canvas:focus-visible {
    box-shadow: inset 0 0 0 1px var(--vscode-focusBorder, #0078d4);
  }
  canvas.dragging {
    cursor: grabbing;
  }
  .tip {
    position: absolute;
    pointer-events: none;
    max-width: 420px;
    padding: 6px 8px;
    font: 12px var(--vscode-font-family, system-ui, sans-serif);
    color: var(--vscode-editorHoverWidget-foreground, #cccccc);
    background: var(--vscode-editorHoverWidget-background, #252526);
    border: 1px solid var(--vscode-editorHoverWidget-border, #454545);
    border-radius: 3px;
    box-shadow: 0 2px 8px var(--vscode-widget-shadow, rgba(0, 0, 0, 0.36));
    z-index: 2;
  }
  .tip b {
    display: block;
    margin-bottom: 2px;
    font-family: var(--vscode-editor-font-family, monospace);
  }
  .tip div {
    margin-top: 1px;
  }
  .tip .where {
    color: var(--vscode-textLink-foreground, #4daafc);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
  }
`;
