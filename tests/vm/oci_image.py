# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""oci_image.py BINARY NAME OUTPUT [FILE]: an OCI image layout archive (image-spec v1.1) holding one layer with
BINARY as /FILE (default: pause), its entrypoint, named NAME (io.containerd.image.name), for
`ctr -n k8s.io images import OUTPUT`. The test VMs reach no registry: their pause image and static pods' image are
the pause binary's, their load image (issue 76) the load binary's (tests/vm/load). Deterministic: the same binary
gives the same digests."""

import hashlib
import io
import json
import sys
import tarfile


def blob(archive, data):
    """Add data under blobs/sha256/ and return its descriptor fields."""
    digest = hashlib.sha256(data).hexdigest()
    info = tarfile.TarInfo('blobs/sha256/%s' % digest)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    archive.addfile(info, io.BytesIO(data))
    return {'digest': 'sha256:%s' % digest, 'size': len(data)}


def layer(binary, file_name):
    """An uncompressed layer tar with the binary as /file_name (root-owned, executable)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode='w', format=tarfile.PAX_FORMAT) as archive:
        with open(binary, 'rb') as handle:
            data = handle.read()
        info = tarfile.TarInfo(file_name)
        info.size, info.mode, info.mtime, info.uid, info.gid = len(data), 0o755, 0, 0, 0
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def main(binary, name, output, file_name='pause'):
    layer_data = layer(binary, file_name)
    diff_id = 'sha256:%s' % hashlib.sha256(layer_data).hexdigest()
    config = json.dumps({'architecture': 'amd64', 'os': 'linux',
                         'config': {'Entrypoint': ['/' + file_name], 'User': '65535:65535'},
                         'rootfs': {'type': 'layers', 'diff_ids': [diff_id]}}, sort_keys=True).encode()
    with tarfile.open(output, 'w', format=tarfile.PAX_FORMAT) as archive:
        layer_descriptor = dict(blob(archive, layer_data), mediaType='application/vnd.oci.image.layer.v1.tar')
        config_descriptor = dict(blob(archive, config), mediaType='application/vnd.oci.image.config.v1+json')
        manifest = json.dumps({'schemaVersion': 2, 'mediaType': 'application/vnd.oci.image.manifest.v1+json',
                               'config': config_descriptor, 'layers': [layer_descriptor]}, sort_keys=True).encode()
        manifest_descriptor = dict(blob(archive, manifest), mediaType='application/vnd.oci.image.manifest.v1+json',
                                   annotations={'io.containerd.image.name': name,
                                                'org.opencontainers.image.ref.name': name.rsplit(':', 1)[-1]})
        for file_name, document in (('oci-layout', {'imageLayoutVersion': '1.0.0'}),
                                    ('index.json', {'schemaVersion': 2, 'manifests': [manifest_descriptor]})):
            data = json.dumps(document, sort_keys=True).encode()
            info = tarfile.TarInfo(file_name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            archive.addfile(info, io.BytesIO(data))


if __name__ == '__main__':
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
