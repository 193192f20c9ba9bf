// The smallest end-to-end fact: the packaged extension is installed and its commands are in the palette.
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import { closeQuickInput, openWorkbench, paletteRows, until } from '../lib/workbench';
import { paletteCommands, paletteTitle } from '../lib/manifest';
import { copyExample } from '../lib/workspace';

export function activationCheck(suite: Suite): Check {
  return {
    name: 'the command palette lists the mpiscope commands',
    run: async ({ page, shot, log }) => {
      const commands = paletteCommands(suite.vsix);
      if (commands.length === 0) throw new Error('package.json contributes no commands');
      await openWorkbench(page, suite.serverUrl, copyExample(suite, 'deadlock'));
      await shot('workbench');
      const rows = await until(
        'every contributed command in the palette',
        async () => {
          const labels = await paletteRows(page, 'mpiscope');
          const missing = commands.filter((c) => !labels.some((l) => l.includes(paletteTitle(c))));
          return missing.length === 0 ? labels : undefined;
        },
        20_000,
        async () => JSON.stringify(await paletteRows(page, 'mpiscope')),
      );
      log(`palette: ${rows.join(' | ')}`);
      await shot('palette');
      await closeQuickInput(page);
    },
  };
}
