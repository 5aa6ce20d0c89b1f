#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright (c) 2026 The SeedDB authors
# MIT License (see LICENSE in the SeedDB repository)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: seeddb
short_description: Deploy versioned SQLite seed databases with seeddb
version_added: "0.1.0"
description:
  - Runs the C(seeddb) command (C(deploy), C(reseed), C(rollback) or C(purge)) with C(--json)
    and returns the entries it prints, one per seed.
  - A deploy that finds every working copy up to date changes nothing, so the task reports
    C(changed) only when a seed's action is other than C(unchanged) (or C(held), a rollback's
    hold), or when a purge removed something.
  - In check mode the command runs with C(--dry-run), which changes nothing and reports what
    would be done.
  - With C(--diff), shows each seed's recorded version before and after; for C(purge),
    whether the seed is deployed, or with I(adopted=true) the adopted copies removed (the
    record stays).
  - On failure, returns SeedDB's one-line message as C(msg) and its exit code as RV(rc).
    A combination of options C(seeddb) refuses as bad usage is refused by the module before
    anything runs, in SeedDB's words, with RV(rc=64); so are O(forget_signature) and
    O(keep_previous) with O(command=rollback) (C(unknown option `--forget-signature`)), which
    would otherwise be left out. Other options a command does not take are ignored, as
    each says.
  - "SeedDB's warnings (its C(seeddb: warning:) lines) become the task's warnings."
  - A seed held after a rollback (its action V(held)) is not a change, but it is reported
    (RV(held), RV(held_seeds)) with a warning, since the host stays on an older version than
    the one the play deploys. The warning ends with the host's node name and the working
    copy's path, in parentheses, so that a fleet run shows one warning per host held
    (Ansible shows each distinct warning text once per play).
options:
  command:
    description:
      - The C(seeddb) subcommand to run.
      - V(deploy) deploys each seed whose working copy is missing or outdated; V(reseed)
        replaces each working copy with its seed; V(rollback) restores the working copy the last
        replace kept; V(purge) removes working copies, their sidecars, previous generations,
        locks and settings.
    type: str
    choices: [deploy, reseed, rollback, purge]
    default: deploy
  manifest:
    description:
      - A JSON manifest listing the app's seeds (C(--manifest)).
      - Mutually exclusive with O(app) and with the options that describe one seed (O(seed),
        O(version), O(location), O(name), O(sha256), O(preserve), O(merge), O(merge_table), O(read_only)),
        since the manifest describes them.
    type: path
  app:
    description:
      - The app identifier (C(--app)), 1-128 of C([A-Za-z0-9._-]), not starting with C(.).
    type: str
  seed:
    description:
      - The seed database the app ships (C(--seed)).
      - Required with O(app) for O(command=deploy) and O(command=reseed). O(command=rollback)
        needs only O(app) and O(name) (or this, which then names the working copy);
        O(command=purge) ignores it.
    type: path
  version:
    description:
      - The version the app ships now (C(--version)); any change redeploys. V(auto) uses the
        seed's SHA-256.
      - Required with O(app) for O(command=deploy) and O(command=reseed); ignored by
        O(command=rollback) and O(command=purge).
    type: str
  name:
    description:
      - The working copy's file name (C(--name)); by default the seed's file name.
      - With O(command=rollback) or O(command=purge) and O(app), the working copy to roll back
        or purge.
    type: str
  location:
    description:
      - Where the working copy lives (C(--location)), V(data) (user data, the seeddb default) or
        V(cache) (regenerable).
      - Only with O(app), for every command, O(command=purge) included; a manifest sets it per seed.
    type: str
    choices: [data, cache]
  merge:
    description:
      - How the user's edits of the seed's rows meet each new seed (C(--merge)); seeddb's
        default is V(user-wins) for O(location=data) and V(off) for O(location=cache).
      - With O(command=reseed), the policy of that reseed alone (V(off) puts the seed's own
        rows back; the result's C(discarded) names the tables whose changes it replaced),
        with O(manifest) too.
      - Otherwise only with O(app); a manifest sets it per seed (C(merge) or C(mergeTables)).
      - Ignored by O(command=purge).
    type: str
    choices: ['off', seed-wins, user-wins, fail]
  merge_table:
    description:
      - One table's merge policy, overriding O(merge) (C(--merge-table TABLE=POLICY), once per
        table), as a dictionary from table to policy (V(off), V(seed-wins), V(user-wins) or
        V(fail)). An unquoted V(off), which YAML reads as false, means V(off).
      - Only with O(app); a table the seed does not have is refused.
      - Ignored by O(command=purge).
    type: dict
  preserve:
    description:
      - Tables holding the user's own data, carried into each new copy (C(--preserve), once
        each).
      - Only with O(app); a manifest sets them per seed (C(preserve)). A table the seed does
        not have is refused.
      - Ignored by O(command=purge).
    type: list
    elements: str
  sha256:
    description:
      - The seed's expected SHA-256, 64 hexadecimal digits (C(--sha256)); a mismatch refuses
        the deploy.
      - Only with O(app), for O(command=deploy) and O(command=reseed).
    type: str
  read_only:
    description:
      - Deploy the seed as a symbolic link straight to the seed file, with no copy
        (C(--read-only)); apps open it read-only. The seed must be uncompressed, not in WAL mode, at an
        absolute path, and not writable by the app's user (seeddb exits 78 or 73 otherwise,
        changing nothing). It takes no O(preserve), O(merge) or O(merge_table), since a link
        has no copy to carry them into (seeddb exits 64). Leaving it V(false) on a seed deployed
        read-only switches it back to a copy.
      - Only with O(app), for O(command=deploy) and O(command=reseed); a manifest sets it per
        seed (C(readOnly)).
    type: bool
    default: false
  integrity:
    description:
      - How the seed is checked before it is swapped in (C(--integrity)), V(none), V(quick)
        (C(PRAGMA quick_check)) or V(full) (C(PRAGMA integrity_check)); seeddb's default is
        V(quick).
      - Ignored by O(command=purge).
    type: str
    choices: [none, quick, full]
  keep_previous:
    description:
      - Keep the replaced copy as the previous generation, for O(command=rollback)
        (C(--keep-previous)); seeddb's default is V(true).
      - For O(command=deploy) and O(command=reseed); refused with O(command=rollback)
        (a rollback keeps none), ignored by O(command=purge).
    type: bool
  allow_downgrade:
    description:
      - Deploy a signed manifest whose serial is lower than the one deployed
        (C(--allow-downgrade)).
      - For O(command=deploy) and O(command=reseed).
    type: bool
    default: false
  strategy:
    description:
      - V(swap) (atomic rename, refused while in use), V(live) (through SQLite, while in use)
        or V(auto) (swap unless in use) (C(--strategy)); seeddb's default is V(auto).
      - Ignored by O(command=purge).
    type: str
    choices: [auto, swap, live]
  wait:
    description:
      - Seconds to wait for another deploy or for apps to release the database (C(--wait));
        seeddb's default is 5.
    type: float
  system:
    description:
      - Use system locations (C(/var/lib/<app>), C(/var/cache/<app>)) (C(--system)), for
        services.
    type: bool
    default: false
  root:
    description:
      - With O(system), a prefix for every system path (C(--root)), like dpkg's C(--instdir).
    type: path
  owner:
    description:
      - Owner of the working copy, its directory, lock and settings, as C(user) or
        C(user:group) (C(--owner)).
    type: str
  mode:
    description:
      - Mode of the working copy (C(--mode)), at most C(0755) and not group- or world-writable.
      - Quote it (V('0644')) so that YAML keeps it a string; an integer is read as the mode's
        value (YAML's C(0644) is 420) and passed in octal.
    type: raw
  trusted_keys:
    description:
      - Minisign public keys whose signed manifests are trusted (C(--trusted-key), once each);
        then only signed seeds deploy.
      - Ignored by O(command=rollback) and O(command=purge).
    type: list
    elements: path
  forget_signature:
    description:
      - Deploy a manifest that is not signed by the key the seed's record pins, and forget
        the pin, to leave signing on purpose (C(--forget-signature)).
      - For O(command=deploy) and O(command=reseed); refused with O(command=rollback)
        (a rollback checks no signature and keeps the pin), ignored by O(command=purge)
        (which forgets the pin with the record).
    type: bool
    default: false
  orphans:
    description:
      - With O(command=purge) and O(manifest), purge instead the working copies recorded for the
        manifest's app that the manifest no longer lists (C(--orphans)).
    type: bool
    default: false
  adopted:
    description:
      - With O(command=purge), remove only the adopted copies (databases SeedDB found with no
        record and kept as C(<name>.adopted-<stamp>)), nothing else (C(--adopted)).
    type: bool
    default: false
  executable:
    description:
      - The C(seeddb) executable, a path or a name looked up on E(PATH).
    type: str
    default: seeddb
notes:
  - The working copy's location follows the environment of the user the task runs as
    (E(XDG_DATA_HOME), E(XDG_CONFIG_HOME), E(XDG_CACHE_HOME), E(HOME)) unless O(system) is set.
requirements:
  - seeddb
attributes:
  check_mode:
    description: Runs C(seeddb) with C(--dry-run).
    support: full
  diff_mode:
    description: Shows each seed's recorded version before and after (for C(purge), whether it is deployed, or the adopted copies removed).
    support: full
  platform:
    description: SeedDB runs on Linux.
    support: full
    platforms: posix
author:
  - The SeedDB authors (@seeddb)
'''

EXAMPLES = r'''
- name: Deploy the seeds a package ships, for a service
  seeddb.seeddb.seeddb:
    manifest: /usr/share/levels/seeds.json
    system: true
    owner: levels

- name: Deploy one seed into the user's data directory, merging the user's edits
  seeddb.seeddb.seeddb:
    app: com.example.levels
    seed: /usr/share/levels/levels.sqlite
    version: "2"
    merge: user-wins

- name: Only deploy what a trusted key signed
  seeddb.seeddb.seeddb:
    manifest: /usr/share/levels/seeds.json
    trusted_keys:
      - /etc/seeddb/levels.pub

- name: Deploy one seed, carrying the user's own table and merging one table
  seeddb.seeddb.seeddb:
    app: com.example.levels
    seed: /usr/share/levels/levels.sqlite
    version: "3"
    preserve:
      - scores
    merge_table:
      levels: user-wins
    integrity: full

- name: Go back to the previous generation
  seeddb.seeddb.seeddb:
    command: rollback
    app: com.example.levels
    name: levels.sqlite

- name: Remove a working copy and its record
  seeddb.seeddb.seeddb:
    command: purge
    app: com.example.levels
    name: levels.sqlite
'''

RETURN = r'''
seeds:
  description:
    - The entries C(seeddb --json) printed, one per seed, as docs/reference.md's "JSON output"
      describes them.
    - For deploy, reseed and rollback, each has C(name), C(action) (V(installed), V(replaced),
      V(restored), V(reseeded), V(rolled-back), V(held) or V(unchanged)), C(from), C(to) and
      C(workingCopy), and C(strategy), C(carried), C(merge), C(discarded) (the seed tables
      whose changes a replace with merging off replaced) and C(oldCopyKeptAs) (the adopted
      copy that holds them, when no previous generation was kept) when they apply, and C(readOnly)
      (V(true)) and C(seedLink) (the seed file) when the working copy is a read-only seed's
      link; for purge, C(name) and C(removed).
    - On failure, the seeds done before it.
  returned: always
  type: list
  elements: dict
  sample:
    - name: levels.sqlite
      action: replaced
      from: "1"
      to: "2"
      workingCopy: /home/ada/.local/share/com.example.levels/levels.sqlite
      strategy: swap
held:
  description:
    - Whether a seed is held after a rollback (its action V(held)). The working copy stays at
      the version rolled back to until the app ships another version, or O(command=reseed).
  returned: always
  type: bool
  sample: false
held_seeds:
  description: The seeds held, each with its name, the version held at and the one held from.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The working copy's name.
      type: str
    held_at:
      description: The version the working copy is at, the one rolled back to.
      type: str
    held_from:
      description: The version rolled back from, which deploys leave alone.
      type: str
  sample:
    - name: levels.sqlite
      held_at: "1"
      held_from: "2"
dry_run:
  description: Whether C(seeddb) ran with C(--dry-run) (check mode), so nothing was changed.
  returned: always
  type: bool
  sample: false
cmd:
  description: The command that ran.
  returned: always
  type: list
  elements: str
  sample: [seeddb, deploy, --manifest, /usr/share/levels/seeds.json, --json]
rc:
  description: The exit code of C(seeddb) (see docs/reference.md, "Exit codes"); V(127) when
    C(seeddb) is not found (in C(PATH), or at the path O(executable) gives).
  returned: always
  type: int
  sample: 66
stdout:
  description: What C(seeddb) printed on standard output, the JSON object.
  returned: always
  type: str
stderr:
  description: What C(seeddb) printed on standard error, its warnings and error line.
  returned: always
  type: str
error:
  description: What C(seeddb) reported on failure, the seed (or V(null)), the exit code and the message.
  returned: failed
  type: dict
  sample:
    seed: levels.sqlite
    code: 66
    message: "seed not found: /usr/share/levels/levels.sqlite"
'''

import json
import os
import platform

from ansible.module_utils.basic import AnsibleModule

# Actions after which the working copy is as it was.
NO_CHANGE = ('unchanged', 'held')

# The options each command passes on, in the order `seeddb` lists them.
DEPLOY_FLAGS = ('seed', 'version', 'location', 'name', 'sha256', 'preserve', 'merge', 'merge_table', 'read_only')
ROLLBACK_FLAGS = ('seed', 'location', 'name', 'preserve', 'merge', 'merge_table')
PURGE_FLAGS = ('location', 'name')

# The flag each option is passed as.
FLAG = dict(
    seed='--seed', version='--version', location='--location', name='--name', sha256='--sha256',
    preserve='--preserve', merge='--merge', merge_table='--merge-table', read_only='--read-only',
    strategy='--strategy', integrity='--integrity', keep_previous='--keep-previous',
    trusted_keys='--trusted-key', allow_downgrade='--allow-downgrade', forget_signature='--forget-signature',
)

# The options a command does not take whose leaving out would change what the task asks
# (`seeddb` refuses their flags as unknown), in the order the module would pass them. The
# other options a command does not take are ignored, as DOCUMENTATION says, so that tasks
# can share their options (`module_defaults`).
NOT_TAKEN = dict(
    rollback=('keep_previous', 'forget_signature'),
)

# The prefix of SeedDB's warning lines on standard error.
WARNING = 'seeddb: warning: '


# The module's options, as DOCUMENTATION describes them (AnsibleModuleTests compares the two).
ARGUMENT_SPEC = dict(
    command=dict(type='str', default='deploy', choices=['deploy', 'reseed', 'rollback', 'purge']),
    manifest=dict(type='path'),
    app=dict(type='str'),
    seed=dict(type='path'),
    version=dict(type='str'),
    name=dict(type='str'),
    location=dict(type='str', choices=['data', 'cache']),
    sha256=dict(type='str'),
    preserve=dict(type='list', elements='str'),
    merge=dict(type='str', choices=['off', 'seed-wins', 'user-wins', 'fail']),
    merge_table=dict(type='dict'),
    read_only=dict(type='bool', default=False),
    strategy=dict(type='str', choices=['auto', 'swap', 'live']),
    integrity=dict(type='str', choices=['none', 'quick', 'full']),
    keep_previous=dict(type='bool'),
    wait=dict(type='float'),
    system=dict(type='bool', default=False),
    root=dict(type='path'),
    owner=dict(type='str'),
    mode=dict(type='raw'),
    trusted_keys=dict(type='list', elements='path', no_log=False),
    allow_downgrade=dict(type='bool', default=False),
    forget_signature=dict(type='bool', default=False),
    orphans=dict(type='bool', default=False),
    adopted=dict(type='bool', default=False),
    executable=dict(type='str', default='seeddb'),
)


def given(params, key):
    """Whether the task set option `key` (an empty list or dictionary, or a flag left
    false, counts as not set)."""
    value = params[key]
    return value is not None and value is not False and value != [] and value != {}


def usage_problem(params):
    """What `seeddb` would refuse as bad usage (exit 64), in its own words, or None."""
    command = params['command']
    flags = {'deploy': DEPLOY_FLAGS, 'reseed': DEPLOY_FLAGS, 'rollback': ROLLBACK_FLAGS}.get(command, PURGE_FLAGS)
    if params['orphans'] and command != 'purge':
        return 'orphans goes with command purge'
    if params['orphans'] and params['manifest'] is None:
        return '--orphans goes with --manifest FILE'
    if params['adopted'] and command != 'purge':
        return 'adopted goes with command purge'
    if params['adopted'] and params['orphans']:
        return '--adopted cannot be combined with --orphans'
    for key in NOT_TAKEN.get(command, ()):
        # `keep_previous: false` is a setting; a flag left false is not.
        if (params[key] is not None) if key == 'keep_previous' else given(params, key):
            return 'unknown option `%s`' % FLAG[key]
    if params['manifest'] is not None:
        # A reseed's --merge is its own, beside a manifest too.
        extra = [FLAG[key] for key in flags if given(params, key) and not (command == 'reseed' and key == 'merge')]
        if params['app'] is not None:
            extra.insert(0, '--app')
        if extra:
            return '--manifest cannot be combined with %s' % ', '.join(extra)
        return None
    if command in ('deploy', 'reseed'):
        missing = [flag for key, flag in (('app', '--app ID'), ('seed', '--seed PATH'), ('version', '--version STRING'))
                   if params[key] is None]
        if len(missing) == 3:
            return 'missing --manifest FILE, or --app ID, --seed PATH and --version STRING'
        if missing:
            return 'missing %s: one seed takes --app, --seed and --version (or give --manifest FILE)' % and_list(missing)
        return None
    has_name = params['name'] is not None or (command == 'rollback' and params['seed'] is not None)
    if params['app'] is None and not has_name:
        return 'missing --manifest FILE, or --app ID and --name FILE'
    if params['app'] is None:
        return 'missing --app ID: a working copy takes --app and --name (or give --manifest FILE)'
    if not has_name:
        return 'missing --name FILE: a working copy takes --app and --name (or give --manifest FILE)'
    return None


def and_list(words):
    """`a`, `a and b`, `a, b and c`."""
    return words[0] if len(words) == 1 else ', '.join(words[:-1]) + ' and ' + words[-1]


def build_command(module, executable):
    """The seeddb command line for the module's parameters."""
    params = module.params
    command = params['command']
    argv = [executable, command]

    def add(flag, value):
        if value is not None:
            argv.extend([flag, value])

    add('--manifest', params['manifest'])
    add('--app', params['app'])
    if command in ('deploy', 'reseed'):
        add('--seed', params['seed'])
        add('--version', params['version'])
        add('--sha256', params['sha256'])
        if params['read_only']:
            argv.append('--read-only')
    elif command == 'rollback' and params['name'] is None:
        add('--seed', params['seed'])
    add('--name', params['name'])
    add('--location', params['location'])
    if command != 'purge':
        for table in params['preserve'] or []:
            add('--preserve', table)
        add('--merge', params['merge'])
        for table, policy in sorted((params['merge_table'] or {}).items()):
            add('--merge-table', '%s=%s' % (table, policy))
        add('--strategy', params['strategy'])
        add('--integrity', params['integrity'])
    if command in ('deploy', 'reseed') and params['keep_previous'] is not None:
        add('--keep-previous', 'true' if params['keep_previous'] else 'false')
    if params['wait'] is not None:
        add('--wait', '%g' % params['wait'])
    if params['system']:
        argv.append('--system')
    add('--root', params['root'])
    add('--owner', params['owner'])
    mode = params['mode']
    if isinstance(mode, int):
        mode = '%o' % mode
    add('--mode', mode)
    if command in ('deploy', 'reseed'):
        for key in params['trusted_keys'] or []:
            add('--trusted-key', key)
        if params['allow_downgrade']:
            argv.append('--allow-downgrade')
        if params['forget_signature']:
            argv.append('--forget-signature')
    if command == 'purge' and params['orphans']:
        argv.append('--orphans')
    if command == 'purge' and params['adopted']:
        argv.append('--adopted')
    argv.append('--json')
    if module.check_mode:
        argv.append('--dry-run')
    return argv


def warnings_of(stderr):
    """SeedDB's warnings, its `seeddb: warning: …` lines on standard error."""
    return [line[len(WARNING):].strip() for line in (stderr or '').splitlines() if line.startswith(WARNING)]


def held_entries(command, seeds):
    """The entries of the seeds a rollback holds (their action `held`; a purge holds none)."""
    if command == 'purge':
        return []
    return [entry for entry in seeds if entry.get('action') == 'held']


def holds_of(entries):
    """The held seeds' `held_seeds`: name, the version held at and the one held from."""
    return [dict(name=entry.get('name'), held_at=entry.get('to'), held_from=entry.get('heldFrom')) for entry in entries]


def hold_warning(entry):
    """The warning a held seed gives: the host stays behind the version deployed. It ends
    with the host's node name and the working copy because Ansible shows each distinct
    warning text once per play: a text alike on every host would be one warning for the
    whole fleet, naming none of the hosts held."""
    return ('%s: held at %s: rolled back from %s; a new version or `seeddb reseed` ends the hold (on %s: %s)'
            % (entry.get('name'), entry.get('to'), entry.get('heldFrom'), platform.node(), entry.get('workingCopy')))


def is_change(command, entry):
    """Whether one seed's entry says something was (or would be) changed."""
    if command == 'purge':
        return bool(entry.get('removed'))
    return entry.get('action') not in NO_CHANGE


def version_text(version):
    return 'none' if version is None else version


def diff_of(command, seeds, adopted=False):
    """Each seed's recorded version before and after, one line per seed. A purge's JSON
    names the files it removes, not the version: whether the seed is deployed, or, for a
    purge of the adopted copies only (the record stays), the copies removed."""
    before, after = [], []
    for entry in seeds:
        name = entry.get('name', '?')
        if command == 'purge' and adopted:
            removed = [os.path.basename(path) for path in entry.get('removed') or []]
            before.append('%s: adopted copies: %s\n' % (name, ', '.join(removed) if removed else 'none'))
            after.append('%s: adopted copies: none\n' % name)
        elif command == 'purge':
            before.append('%s: %s\n' % (name, 'deployed' if entry.get('removed') else 'none'))
            after.append('%s: none\n' % name)
        else:
            before.append('%s: %s\n' % (name, version_text(entry.get('from'))))
            after.append('%s: %s\n' % (name, version_text(entry.get('to'))))
    return {'before': ''.join(before), 'after': ''.join(after)}


def failure_message(output, stderr, rc):
    """SeedDB's one-line message: from the JSON's error, else its last line on stderr."""
    error = output.get('error') if isinstance(output, dict) else None
    if isinstance(error, dict) and error.get('message'):
        return error['message']
    lines = [line.strip() for line in (stderr or '').splitlines() if line.strip()]
    if lines:
        line = lines[-1]
        prefix = 'seeddb: error: '
        return line[len(prefix):] if line.startswith(prefix) else line
    return 'seeddb exited with code %d' % rc


def main():
    module = AnsibleModule(
        argument_spec=ARGUMENT_SPEC,
        supports_check_mode=True,
    )
    params = module.params
    command = params['command']
    # Refused here, in SeedDB's words and with its exit code, before anything runs.
    refused = dict(rc=64, seeds=[], dry_run=module.check_mode, held=False, held_seeds=[], cmd=[], stdout='', stderr='')
    problem = usage_problem(params)
    if problem is not None:
        module.fail_json(msg=problem, **refused)
    if params['merge_table']:
        # YAML 1.1 reads an unquoted `off` as false.
        params['merge_table'] = dict((table, 'off' if policy is False else policy) for table, policy in params['merge_table'].items())
    for table, policy in (params['merge_table'] or {}).items():
        if policy not in ('off', 'seed-wins', 'user-wins', 'fail'):
            module.fail_json(msg='invalid --merge-table "%s=%s": "%s" is not a merge policy (off, seed-wins, user-wins or fail)'
                             % (table, policy, policy), **refused)

    executable = params['executable']
    if '/' not in executable:
        found = module.get_bin_path(executable)
        if found is None:
            module.fail_json(msg='seeddb not found: "%s" is not in PATH; install seeddb, or give its path in executable' % executable,
                             **dict(refused, rc=127))
        executable = found
    elif not (os.path.isfile(executable) and os.access(executable, os.X_OK)):
        module.fail_json(msg='seeddb not found: "%s" is not an executable file; install seeddb, or give its path in executable' % executable,
                         **dict(refused, rc=127))
    argv = build_command(module, executable)

    rc, stdout, stderr = module.run_command(argv)
    try:
        output = json.loads(stdout) if stdout.strip() else {}
    except ValueError:
        output = {}
    if not isinstance(output, dict):
        output = {}
    seeds = output.get('seeds') or []
    held = held_entries(command, seeds)
    result = dict(
        changed=False, seeds=seeds, dry_run=bool(output.get('dryRun', module.check_mode)),
        held=bool(held), held_seeds=holds_of(held), cmd=argv, rc=rc, stdout=stdout, stderr=stderr,
    )
    for warning in warnings_of(stderr):
        module.warn(warning)
    for entry in held:
        module.warn(hold_warning(entry))

    result['changed'] = any(is_change(command, entry) for entry in seeds)
    if rc != 0:
        if 'error' in output:
            result['error'] = output['error']
        result['msg'] = failure_message(output, stderr, rc)
        module.fail_json(**result)

    if module._diff:
        result['diff'] = diff_of(command, seeds, adopted=bool(module.params.get('adopted')))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
