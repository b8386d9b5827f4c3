import { describe, expect, it } from 'vitest';
import { defaultStateDir, defaultStatePath } from './default-state-dir.js';

describe('defaultStateDir', () => {
  it.each([
    ['Linux with XDG_STATE_HOME', { XDG_STATE_HOME: '/xdg/state' }, 'linux', '/xdg/state/mcp-host'],
    ['Linux without it', {}, 'linux', '/home/u/.local/state/mcp-host'],
    ['Linux with an empty one', { XDG_STATE_HOME: '' }, 'linux', '/home/u/.local/state/mcp-host'],
    [
      'Linux with a relative one (ignored, as the XDG spec says)',
      { XDG_STATE_HOME: 'rel/state' },
      'linux',
      '/home/u/.local/state/mcp-host',
    ],
    ['FreeBSD', {}, 'freebsd', '/home/u/.local/state/mcp-host'],
    [
      'macOS (XDG ignored)',
      { XDG_STATE_HOME: '/xdg/state' },
      'darwin',
      '/home/u/Library/Application Support/mcp-host',
    ],
    [
      'Windows with LOCALAPPDATA',
      { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' },
      'win32',
      'C:\\Users\\u\\AppData\\Local\\mcp-host',
    ],
    ['Windows without it', {}, 'win32', 'C:\\Users\\u\\AppData\\Local\\mcp-host'],
    [
      'any platform with MCP_HOST_STATE_DIR',
      { MCP_HOST_STATE_DIR: '/override', XDG_STATE_HOME: '/x' },
      'linux',
      '/override',
    ],
    [
      'Windows with MCP_HOST_STATE_DIR',
      { MCP_HOST_STATE_DIR: 'D:\\state', LOCALAPPDATA: 'C:\\L' },
      'win32',
      'D:\\state',
    ],
    ['macOS with MCP_HOST_STATE_DIR', { MCP_HOST_STATE_DIR: '/o' }, 'darwin', '/o'],
    [
      'an empty MCP_HOST_STATE_DIR (ignored)',
      { MCP_HOST_STATE_DIR: '' },
      'linux',
      '/home/u/.local/state/mcp-host',
    ],
  ] as const)('%s', (_label, env, platform, expected) => {
    const home = platform === 'win32' ? 'C:\\Users\\u' : '/home/u';
    expect(defaultStateDir(env, platform, home)).toBe(expected);
  });

  it('puts the state file in it as state.json', () => {
    expect(defaultStatePath({}, 'linux', '/home/u')).toBe(
      '/home/u/.local/state/mcp-host/state.json',
    );
    expect(defaultStatePath({ LOCALAPPDATA: 'C:\\L' }, 'win32', 'C:\\U')).toBe(
      'C:\\L\\mcp-host\\state.json',
    );
  });

  it('defaults to this process: environment, platform and home directory', () => {
    expect(defaultStateDir()).toBe(defaultStateDir(process.env, process.platform));
    expect(defaultStateDir({}, 'linux')).toMatch(/[\\/]\.local[\\/]state[\\/]mcp-host$/);
  });
});
