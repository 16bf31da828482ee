import { runProcess } from '@agentv/core/provider-utils';

// What a desktop opener needs to find the user's session and browser.
const PASSED_ENV = [
  'PATH',
  'HOME',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XDG_RUNTIME_DIR',
  'DBUS_SESSION_BUS_ADDRESS',
  'BROWSER',
  'SYSTEMROOT',
];

/**
 * Opens `url` in the user's browser with the platform's opener (`open`, `xdg-open`, `start`).
 * Best effort: when there is none (a server, a container) the printed URL is the way in.
 */
export function openBrowser(url: string): void {
  const command =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : ['xdg-open', url];
  const env: Record<string, string | undefined> = {};
  for (const name of PASSED_ENV) env[name] = process.env[name];
  runProcess({ command, cwd: process.cwd(), env }).catch(() => {});
}
