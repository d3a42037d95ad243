#!/usr/bin/env python3
"""Static checks of kiln serve's deployment files (nothing here runs Docker
or Kubernetes; neither is available where Kiln is built and tested).

    tests/serve/check_deploy_files.py [--root DIR] [--no-self-test]

Reads packaging/docker/Dockerfile (+ Dockerfile.dockerignore), every YAML
file under packaging/kubernetes/ (python3-yaml) and docs/serving.md, and
checks what makes a deployment work or fail: kinds and apiVersions, that
the containers run `kiln serve` on the port their probes, Service, HPA and
metrics scraping use, the probe paths, the drain time, the non-root user
the Dockerfile creates, and that the HPA's metric is the one the
prometheus-adapter rule defines from the counter kiln exports.

Each problem is printed as `FILE: FIELD: what is wrong`; the exit status is
1 when there is any. Then (unless --no-self-test) every check is shown to
be able to fail: each mutation in MUTATIONS breaks one thing in a copy of
the parsed files and must produce the error it names.
"""
import argparse
import copy
import json
import os
import re
import shlex
import sys

try:
    import yaml
except ImportError:
    print("SKIP: python3-yaml is not installed (Debian: apt-get install python3-yaml)")
    sys.exit(77)

DOCKERFILE = "packaging/docker/Dockerfile"
DOCKERIGNORE = "packaging/docker/Dockerfile.dockerignore"
DOCKER_README = "packaging/docker/README.md"
K8S_DIR = "packaging/kubernetes"
DEPLOYMENT = K8S_DIR + "/plain/deployment.yaml"
SERVICE = K8S_DIR + "/plain/service.yaml"
HPA = K8S_DIR + "/plain/hpa.yaml"
PDB = K8S_DIR + "/plain/pdb.yaml"
PVC = K8S_DIR + "/plain/models-pvc.yaml"
PODMONITOR = K8S_DIR + "/plain/podmonitor.yaml"
ADAPTER = K8S_DIR + "/plain/prometheus-adapter-values.yaml"
KUSTOMIZATION = K8S_DIR + "/plain/kustomization.yaml"
RUNTIME = K8S_DIR + "/kserve/servingruntime.yaml"
ISVC = K8S_DIR + "/kserve/inferenceservice.yaml"
DOC = "docs/serving.md"

# What the server exports and answers (serve/, issue 23); the files must
# agree with these names.
REQUEST_COUNTER = "kiln_inference_requests_total"
HPA_METRIC = "kiln_inference_requests_per_second"
READY_PATH = "/v2/health/ready"
LIVE_PATH = "/v2/health/live"
KSERVE_MODEL_DIR = "/mnt/models"
KSERVE_PORT = 8080

# kind -> (file, apiVersion) for every object the folders must hold.
EXPECTED_OBJECTS = {
    "Deployment": (DEPLOYMENT, "apps/v1"),
    "Service": (SERVICE, "v1"),
    "HorizontalPodAutoscaler": (HPA, "autoscaling/v2"),
    "PodDisruptionBudget": (PDB, "policy/v1"),
    "PersistentVolumeClaim": (PVC, "v1"),
    "PodMonitor": (PODMONITOR, "monitoring.coreos.com/v1"),
    "Kustomization": (KUSTOMIZATION, "kustomize.config.k8s.io/v1beta1"),
    "ServingRuntime": (RUNTIME, "serving.kserve.io/v1alpha1"),
    "InferenceService": (ISVC, "serving.kserve.io/v1beta1"),
}


class Tree:
    """The parsed files: yaml[path] is the list of documents of that file."""

    def __init__(self, root):
        self.root = root
        self.yaml = {}
        self.parse_errors = []
        self.text = {}
        kdir = os.path.join(root, K8S_DIR)
        for dirpath, _, files in os.walk(kdir):
            for name in sorted(files):
                if not name.endswith((".yaml", ".yml")):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                try:
                    with open(full, encoding="utf-8") as f:
                        docs = [d for d in yaml.safe_load_all(f)]
                except yaml.YAMLError as e:
                    self.parse_errors.append(f"{rel}: (file): not valid YAML: {e}")
                    continue
                self.yaml[rel] = docs
        # The server's C sources (serve/, and cli/*serve*), when the server
        # is there, as one text.
        self.serve_text = None
        serve = os.path.join(root, "serve")
        if os.path.isdir(serve):
            names = [os.path.join(d, n) for d, _, files in os.walk(serve) for n in files]
            cli = os.path.join(root, "cli")
            if os.path.isdir(cli):
                names += [os.path.join(cli, n) for n in os.listdir(cli) if "serve" in n]
            parts = []
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    with open(name, encoding="utf-8", errors="replace") as f:
                        parts.append(f.read())
            self.serve_text = "\n".join(parts)
        for rel in (DOCKERFILE, DOCKERIGNORE, DOCKER_README, DOC):
            try:
                with open(os.path.join(root, rel), encoding="utf-8") as f:
                    self.text[rel] = f.read()
            except OSError:
                self.text[rel] = None


# ---------------------------------------------------------------- helpers

class Report:
    def __init__(self):
        self.errors = []
        self.checks = 0

    def check(self, ok, path, field, message):
        self.checks += 1
        if not ok:
            self.errors.append(f"{path}: {field}: {message}")
        return ok


def get(obj, dotted, default=None):
    """get(obj, 'spec.template.spec') with list indexes as numbers."""
    cur = obj
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return default
    return cur


def objects(tree, path):
    return [d for d in tree.yaml.get(path, []) if isinstance(d, dict)]


def one_object(tree, rep, path, kind):
    found = [d for d in objects(tree, path) if d.get("kind") == kind]
    rep.check(len(found) == 1, path, "kind", f"expected one {kind}, found {len(found)}")
    return found[0] if found else None


def flag_value(argv, flag):
    """Value of `--flag V` or `--flag=V` in argv, else None."""
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            return str(argv[i + 1])
        if isinstance(a, str) and a.startswith(flag + "="):
            return a[len(flag) + 1:]
    return None


def cpu_quantity(q):
    """Kubernetes CPU quantity ("2", "1500m", 2) in cores, None if unreadable."""
    if q is None:
        return None
    s = str(q)
    try:
        return float(s[:-1]) / 1000 if s.endswith("m") else float(s)
    except ValueError:
        return None


def labels_match(selector, labels):
    return isinstance(selector, dict) and bool(selector) and isinstance(labels, dict) and \
        all(labels.get(k) == v for k, v in selector.items())


def resolve_port(port, container):
    """A probe's / Service's port (number or name) as a container port number."""
    if isinstance(port, int):
        return port
    for p in container.get("ports") or []:
        if p.get("name") == port:
            return p.get("containerPort")
    if isinstance(port, str) and port.isdigit():
        return int(port)
    return None


# --------------------------------------------------------------- Dockerfile

def dockerfile_instructions(text):
    """[(stage index, INSTRUCTION, argument text)] with continuations joined."""
    out, buf, stage = [], "", -1
    for raw in text.splitlines():
        line = raw.rstrip()
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if buf and line.lstrip().startswith("#"):
            continue  # comment lines inside a continued RUN
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        word, _, rest = buf.strip().partition(" ")
        word = word.upper()
        if word == "FROM":
            stage += 1
        out.append((stage, word, rest.strip()))
        buf = ""
    return out


def exec_form(arg):
    try:
        value = json.loads(arg)
    except ValueError:
        return None
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def check_dockerfile(tree, rep):
    """Returns what the manifests must agree with: uid, port, entrypoint."""
    facts = {"uid": None, "port": None, "entrypoint": None}
    text = tree.text.get(DOCKERFILE)
    if not rep.check(text is not None, DOCKERFILE, "(file)", "missing"):
        return facts
    ins = dockerfile_instructions(text)
    froms = [(s, a) for s, w, a in ins if w == "FROM"]
    rep.check(len(froms) >= 2, DOCKERFILE, "FROM", f"multi-stage build expected (two FROM), found {len(froms)}")
    if not froms:
        return facts
    first = froms[0][1].split()
    rep.check(first[0].startswith("debian:12") or first[0].startswith("debian:bookworm"),
              DOCKERFILE, "FROM (build)", f"build stage must be Debian 12, is {first[0]}")
    build_name = first[2] if len(first) >= 3 and first[1].upper() == "AS" else None
    rep.check(build_name is not None, DOCKERFILE, "FROM (build)", "build stage needs a name (FROM ... AS build)")
    last_stage, last_from = froms[-1]
    rep.check(last_from.split()[0] in ("debian:12-slim", "debian:bookworm-slim"),
              DOCKERFILE, "FROM (runtime)", f"runtime stage must be debian:12-slim, is {last_from.split()[0]}")
    build_runs = " ".join(a for s, w, a in ins if w == "RUN" and s == froms[0][0])
    rep.check("-DKILN_BUILD_TESTS=OFF" in build_runs, DOCKERFILE, "RUN (build)", "cmake must configure with -DKILN_BUILD_TESTS=OFF")
    rep.check("-DCMAKE_BUILD_TYPE=Release" in build_runs, DOCKERFILE, "RUN (build)", "cmake must configure a Release build")
    rep.check("cmake --install" in build_runs, DOCKERFILE, "RUN (build)", "the build stage must `cmake --install` to a prefix")
    for pkg in ("libmicrohttpd-dev", "libcjson-dev"):
        rep.check(pkg in build_runs.split(), DOCKERFILE, "RUN (build)", f"build stage must install {pkg}")
    final = [(w, a) for s, w, a in ins if s == last_stage]
    run_text = " ".join(a for w, a in final if w == "RUN")
    for pkg in ("libmicrohttpd12", "libcjson1"):
        rep.check(pkg in run_text.split(), DOCKERFILE, "RUN (runtime)", f"runtime stage must install {pkg}")
    dev = [t for t in run_text.split() if re.fullmatch(r"[a-z0-9.+-]+-dev", t)]
    rep.check(not dev, DOCKERFILE, "RUN (runtime)", f"runtime stage installs -dev packages: {dev}")
    copies = [a for w, a in final if w == "COPY"]
    rep.check(any(build_name and f"--from={build_name}" in c.split() for c in copies),
              DOCKERFILE, "COPY (runtime)", f"runtime stage must COPY --from={build_name} the installed prefix")
    users = [a for w, a in final if w == "USER"]
    if rep.check(users, DOCKERFILE, "USER", "runtime stage sets no USER (it would run as root)"):
        user = users[-1].split(":")[0]
        rep.check(user not in ("root", "0"), DOCKERFILE, "USER", f"runs as root ({users[-1]})")
        rep.check(user.isdigit(), DOCKERFILE, "USER",
                  f"use a numeric uid ({users[-1]}): Kubernetes' runAsNonRoot cannot check a name")
        if user.isdigit():
            facts["uid"] = int(user)
            rep.check(re.search(rf"useradd\b[^&;]*--uid {user}\b", run_text) is not None,
                      DOCKERFILE, "USER", f"uid {user} is not created by a `useradd --uid {user}` in the runtime stage")
    entry = [exec_form(a) for w, a in final if w == "ENTRYPOINT"]
    if rep.check(entry and entry[-1], DOCKERFILE, "ENTRYPOINT", "missing, or not in exec (JSON) form"):
        facts["entrypoint"] = entry[-1]
        rep.check(entry[-1][:2] in (["kiln", "serve"], ["/opt/kiln/bin/kiln", "serve"]), DOCKERFILE,
                  "ENTRYPOINT", f'must run `kiln serve`, is {entry[-1]}')
    cmd = [exec_form(a) for w, a in final if w == "CMD"]
    exposed = [a for w, a in final if w == "EXPOSE"]
    if rep.check(cmd and cmd[-1], DOCKERFILE, "CMD", "missing, or not in exec (JSON) form"):
        argv = cmd[-1]
        rep.check(flag_value(argv, "--host") == "0.0.0.0", DOCKERFILE, "CMD",
                  "must pass --host 0.0.0.0 (kiln's default 127.0.0.1 is unreachable from outside the container)")
        port = flag_value(argv, "--port")
        facts["port"] = int(port) if port and port.isdigit() else 8000
        rep.check(argv and argv[0] == "/models", DOCKERFILE, "CMD", f"the repository argument must be /models, is {argv[:1]}")
        rep.check(any(str(facts["port"]) == e.split("/")[0] for x in exposed for e in x.split()),
                  DOCKERFILE, "EXPOSE", f"must expose the port CMD serves on ({facts['port']}), exposes {exposed}")
    ignore = tree.text.get(DOCKERIGNORE)
    if rep.check(ignore is not None, DOCKERIGNORE, "(file)", "missing (the build context is the repository root)"):
        lines = {l.strip().rstrip("/") for l in ignore.splitlines() if l.strip() and not l.startswith("#")}
        for must in (".git", "build"):
            rep.check(must in lines, DOCKERIGNORE, must, f"{must} is not ignored: it would be uploaded as build context")
    return facts


# --------------------------------------------------------------- containers

def container_argv(container, entrypoint):
    """The program and arguments a container runs: command (or the image's
    ENTRYPOINT when it has none) followed by args."""
    command = container.get("command")
    args = [str(a) for a in container.get("args") or []]
    base = [str(c) for c in command] if command else list(entrypoint or [])
    return base + args


def check_server_container(rep, path, container, entrypoint, repo_dir, port, where):
    argv = container_argv(container, entrypoint)
    rep.check(len(argv) >= 2 and os.path.basename(argv[0]) == "kiln" and argv[1] == "serve",
              path, f"{where}.command+args", f"must run `kiln serve`, runs {argv[:2]}")
    rep.check(len(argv) >= 3 and argv[2] == repo_dir, path, f"{where}.args",
              f"the repository argument must be {repo_dir}, is {argv[2:3]}")
    rep.check(flag_value(argv, "--host") == "0.0.0.0", path, f"{where}.args", "must pass --host 0.0.0.0")
    served = flag_value(argv, "--port")
    rep.check(served == str(port), path, f"{where}.args", f"--port must be {port}, is {served}")
    ports = [p.get("containerPort") for p in container.get("ports") or []]
    rep.check(port in ports, path, f"{where}.ports", f"containerPort {port} (the --port) is not declared: {ports}")
    for probe, want in (("readinessProbe", READY_PATH), ("livenessProbe", LIVE_PATH)):
        http = get(container, f"{probe}.httpGet")
        if rep.check(isinstance(http, dict), path, f"{where}.{probe}", "missing httpGet probe"):
            rep.check(http.get("path") == want, path, f"{where}.{probe}.httpGet.path",
                      f"must be {want}, is {http.get('path')}")
            rep.check(resolve_port(http.get("port"), container) == port, path, f"{where}.{probe}.httpGet.port",
                      f"must reach --port {port}, is {http.get('port')}")
    startup = get(container, "startupProbe.httpGet")
    if startup is not None:
        rep.check(startup.get("path") in (LIVE_PATH, READY_PATH), path, f"{where}.startupProbe.httpGet.path",
                  f"must be {LIVE_PATH} or {READY_PATH}, is {startup.get('path')}")
        rep.check(resolve_port(startup.get("port"), container) == port, path,
                  f"{where}.startupProbe.httpGet.port", f"must reach --port {port}, is {startup.get('port')}")
    for kind in ("requests", "limits"):
        res = get(container, f"resources.{kind}") or {}
        rep.check("cpu" in res and "memory" in res, path, f"{where}.resources.{kind}", "needs cpu and memory")
    threads = flag_value(argv, "--threads")
    cpu = cpu_quantity(get(container, "resources.requests.cpu"))
    if threads is not None and cpu is not None:
        rep.check(threads.isdigit() and int(threads) <= max(1, cpu), path, f"{where}.args",
                  f"--threads {threads} exceeds the CPU request ({cpu} cores): threads would queue on the quota")
    return argv


def check_run_as(rep, path, pod_spec, container, uid, where):
    pod_sc = pod_spec.get("securityContext") or {}
    c_sc = container.get("securityContext") or {}
    non_root = c_sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot"))
    rep.check(non_root is True, path, f"{where}.securityContext.runAsNonRoot", "must be true")
    run_as = c_sc.get("runAsUser", pod_sc.get("runAsUser"))
    if uid is not None:
        rep.check(run_as == uid, path, f"{where}.securityContext.runAsUser",
                  f"must be the image's uid {uid} ({DOCKERFILE} USER), is {run_as}")


# ------------------------------------------------------------ plain k8s

def check_plain(tree, rep, facts):
    dep = one_object(tree, rep, DEPLOYMENT, "Deployment")
    svc = one_object(tree, rep, SERVICE, "Service")
    hpa = one_object(tree, rep, HPA, "HorizontalPodAutoscaler")
    if dep is None:
        return
    name = get(dep, "metadata.name")
    pod_labels = get(dep, "spec.template.metadata.labels") or {}
    rep.check(labels_match(get(dep, "spec.selector.matchLabels"), pod_labels), DEPLOYMENT,
              "spec.selector.matchLabels", "must select the pod template's labels")
    pod = get(dep, "spec.template.spec") or {}
    containers = pod.get("containers") or []
    kilns = [c for c in containers if "serve" in container_argv(c, facts["entrypoint"])[1:2]]
    if not rep.check(len(kilns) == 1, DEPLOYMENT, "spec.template.spec.containers",
                     "expected one container running `kiln serve` (its args must contain serve)"):
        return
    c = kilns[0]
    where = f"containers[{containers.index(c)}]"
    port = get(c, "ports.0.containerPort")
    argv = check_server_container(rep, DEPLOYMENT, c, facts["entrypoint"], "/models",
                                  port if isinstance(port, int) else -1, where)
    if facts["port"] is not None:
        rep.check(port == facts["port"], DEPLOYMENT, f"{where}.ports.0.containerPort",
                  f"the image exposes {facts['port']}, the Deployment serves {port}")
    check_run_as(rep, DEPLOYMENT, pod, c, facts["uid"], where)
    # the repository volume is mounted where the server reads it, read-only
    mounts = {m.get("mountPath"): m for m in c.get("volumeMounts") or []}
    mount = mounts.get("/models")
    if rep.check(mount is not None, DEPLOYMENT, f"{where}.volumeMounts", "nothing is mounted at /models"):
        rep.check(mount.get("readOnly") is True, DEPLOYMENT, f"{where}.volumeMounts[/models].readOnly", "must be true")
        vols = {v.get("name"): v for v in pod.get("volumes") or []}
        vol = vols.get(mount.get("name"))
        if rep.check(vol is not None, DEPLOYMENT, "spec.template.spec.volumes",
                     f"no volume named {mount.get('name')} for /models"):
            claim = get(vol, "persistentVolumeClaim.claimName")
            if claim is not None:
                pvc = one_object(tree, rep, PVC, "PersistentVolumeClaim")
                rep.check(pvc is not None and get(pvc, "metadata.name") == claim, PVC, "metadata.name",
                          f"the Deployment claims {claim}, this file defines {get(pvc, 'metadata.name')}")
    if get(c, "securityContext.readOnlyRootFilesystem") is True:
        rep.check("/tmp" in mounts, DEPLOYMENT, f"{where}.volumeMounts", "read-only root file system without a /tmp volume")
    # drain: preStop + the longest accepted request fit in the grace period
    grace = pod.get("terminationGracePeriodSeconds")
    if rep.check(isinstance(grace, int), DEPLOYMENT, "spec.template.spec.terminationGracePeriodSeconds",
                 "must be set (SIGTERM drains in-flight requests)"):
        pre = get(c, "lifecycle.preStop.exec.command") or []
        pre_s = int(pre[1]) if len(pre) == 2 and pre[0] == "sleep" and str(pre[1]).isdigit() else 0
        timeout = flag_value(argv, "--timeout-ms")
        timeout_s = int(timeout) / 1000 if timeout and timeout.isdigit() else 0
        rep.check(grace > pre_s + timeout_s, DEPLOYMENT, "spec.template.spec.terminationGracePeriodSeconds",
                  f"{grace} s does not cover preStop {pre_s} s + --timeout-ms {timeout_s:g} s")
    ann = get(dep, "spec.template.metadata.annotations") or {}
    if "prometheus.io/port" in ann:
        rep.check(str(ann.get("prometheus.io/port")) == str(port), DEPLOYMENT,
                  "spec.template.metadata.annotations[prometheus.io/port]", f"must be {port}")
        rep.check(ann.get("prometheus.io/path", "/metrics") == "/metrics", DEPLOYMENT,
                  "spec.template.metadata.annotations[prometheus.io/path]", "must be /metrics")

    if svc is not None:
        rep.check(labels_match(get(svc, "spec.selector"), pod_labels), SERVICE, "spec.selector",
                  f"does not select the Deployment's pods {pod_labels}")
        sports = get(svc, "spec.ports") or []
        if rep.check(sports, SERVICE, "spec.ports", "no ports"):
            target = sports[0].get("targetPort", sports[0].get("port"))
            rep.check(resolve_port(target, c) == port, SERVICE, "spec.ports[0].targetPort",
                      f"{target} does not reach the container's --port {port}")

    rules = check_adapter(tree, rep)
    if hpa is not None:
        ref = get(hpa, "spec.scaleTargetRef") or {}
        rep.check(ref.get("kind") == "Deployment" and ref.get("apiVersion") == "apps/v1", HPA,
                  "spec.scaleTargetRef", f"must target an apps/v1 Deployment, is {ref.get('apiVersion')} {ref.get('kind')}")
        rep.check(ref.get("name") == name, HPA, "spec.scaleTargetRef.name",
                  f"must be the Deployment's name {name}, is {ref.get('name')}")
        lo, hi = get(hpa, "spec.minReplicas", 1), get(hpa, "spec.maxReplicas")
        rep.check(isinstance(hi, int) and isinstance(lo, int) and 1 <= lo <= hi, HPA,
                  "spec.minReplicas/maxReplicas", f"need 1 <= minReplicas <= maxReplicas, have {lo}, {hi}")
        pods_metrics = [m for m in get(hpa, "spec.metrics") or [] if m.get("type") == "Pods"]
        if rep.check(pods_metrics, HPA, "spec.metrics", "no metric of type Pods"):
            mname = get(pods_metrics[0], "pods.metric.name")
            rep.check(mname == HPA_METRIC, HPA, "spec.metrics[Pods].pods.metric.name",
                      f"must be {HPA_METRIC}, is {mname}")
            rep.check(mname in rules, HPA, "spec.metrics[Pods].pods.metric.name",
                      f"{mname} is not defined by a rule in {ADAPTER} (it defines {sorted(rules)})")
            rep.check(get(pods_metrics[0], "pods.target.type") == "AverageValue", HPA,
                      "spec.metrics[Pods].pods.target.type", "a Pods metric target must be AverageValue")

    pdb = one_object(tree, rep, PDB, "PodDisruptionBudget")
    if pdb is not None:
        rep.check(labels_match(get(pdb, "spec.selector.matchLabels"), pod_labels), PDB,
                  "spec.selector.matchLabels", "does not select the Deployment's pods")
    pm = one_object(tree, rep, PODMONITOR, "PodMonitor")
    if pm is not None:
        rep.check(labels_match(get(pm, "spec.selector.matchLabels"), pod_labels), PODMONITOR,
                  "spec.selector.matchLabels", "does not select the Deployment's pods")
        ep = get(pm, "spec.podMetricsEndpoints.0") or {}
        rep.check(resolve_port(ep.get("port"), c) == port, PODMONITOR, "spec.podMetricsEndpoints[0].port",
                  f"{ep.get('port')} is not the container's port {port} (PodMonitor names a container port)")
        rep.check(ep.get("path", "/metrics") == "/metrics", PODMONITOR, "spec.podMetricsEndpoints[0].path",
                  "must be /metrics")

    kust = one_object(tree, rep, KUSTOMIZATION, "Kustomization")
    if kust is not None:
        listed = kust.get("resources") or []
        base = os.path.dirname(KUSTOMIZATION)
        for r in listed:
            rep.check(os.path.join(base, r) in tree.yaml, KUSTOMIZATION, "resources", f"{r} does not exist")
        for must in (DEPLOYMENT, SERVICE, HPA):
            rep.check(os.path.basename(must) in listed, KUSTOMIZATION, "resources", f"{os.path.basename(must)} is not listed")


def check_adapter(tree, rep):
    """Returns {metric name: rule} for the rules that turn kiln's request
    counter into a per-second rate."""
    docs = tree.yaml.get(ADAPTER)
    if not rep.check(docs and isinstance(docs[0], dict), ADAPTER, "(file)", "missing or empty"):
        return {}
    rules = get(docs[0], "rules.custom")
    if not rep.check(isinstance(rules, list) and rules, ADAPTER, "rules.custom", "no custom rules"):
        return {}
    found = {}
    for i, r in enumerate(rules):
        series = str(r.get("seriesQuery", ""))
        if REQUEST_COUNTER not in series:
            continue
        field = f"rules.custom[{i}]"
        matches = get(r, "name.matches", "")
        try:
            ok = re.search(matches, REQUEST_COUNTER) is not None
        except re.error:
            ok = False
        rep.check(ok, ADAPTER, f"{field}.name.matches", f"{matches!r} does not match {REQUEST_COUNTER}")
        overrides = get(r, "resources.overrides") or {}
        rep.check(get(overrides, "pod.resource") in ("pod", "pods") and
                  get(overrides, "namespace.resource") in ("namespace", "namespaces"),
                  ADAPTER, f"{field}.resources.overrides", "must map the labels pod and namespace to their resources")
        q = str(r.get("metricsQuery", ""))
        for part in ("rate(", "<<.Series>>", "<<.LabelMatchers>>", "<<.GroupBy>>"):
            rep.check(part in q, ADAPTER, f"{field}.metricsQuery", f"has no {part} (a per-pod rate of the counter)")
        found[get(r, "name.as", "")] = r
    rep.check(found, ADAPTER, "rules.custom", f"no rule reads {REQUEST_COUNTER}")
    return found


# ------------------------------------------------------------------ KServe

def check_kserve(tree, rep, facts):
    rt = one_object(tree, rep, RUNTIME, "ServingRuntime")
    isvc = one_object(tree, rep, ISVC, "InferenceService")
    if rt is None:
        return
    formats = get(rt, "spec.supportedModelFormats") or []
    rep.check(any(f.get("name") == "onnx" for f in formats), RUNTIME, "spec.supportedModelFormats",
              "must offer modelFormat onnx")
    protocols = get(rt, "spec.protocolVersions") or []
    rep.check("v2" in protocols, RUNTIME, "spec.protocolVersions", f"must list v2, lists {protocols}")
    containers = get(rt, "spec.containers") or []
    if rep.check(containers, RUNTIME, "spec.containers", "no container"):
        c = containers[0]
        rep.check(c.get("name") == "kserve-container", RUNTIME, "spec.containers[0].name",
                  "KServe routes to and merges into the container named kserve-container")
        check_server_container(rep, RUNTIME, c, facts["entrypoint"], KSERVE_MODEL_DIR, KSERVE_PORT,
                               "spec.containers[0]")
        check_run_as(rep, RUNTIME, {}, c, facts["uid"], "spec.containers[0]")
    ann = get(rt, "spec.annotations") or {}
    rep.check(str(ann.get("prometheus.kserve.io/port")) == str(KSERVE_PORT), RUNTIME,
              "spec.annotations[prometheus.kserve.io/port]", f"must be {KSERVE_PORT}")
    rep.check(ann.get("prometheus.kserve.io/path") == "/metrics", RUNTIME,
              "spec.annotations[prometheus.kserve.io/path]", "must be /metrics")
    if isvc is not None:
        model = get(isvc, "spec.predictor.model") or {}
        rep.check(model.get("runtime") == get(rt, "metadata.name"), ISVC, "spec.predictor.model.runtime",
                  f"must name the runtime {get(rt, 'metadata.name')}, is {model.get('runtime')}")
        fmt = get(model, "modelFormat.name")
        rep.check(any(f.get("name") == fmt for f in formats), ISVC, "spec.predictor.model.modelFormat.name",
                  f"{fmt} is not a format of the runtime")
        rep.check(model.get("protocolVersion") in protocols, ISVC, "spec.predictor.model.protocolVersion",
                  f"{model.get('protocolVersion')} is not among the runtime's {protocols}")
        uri = str(model.get("storageUri", ""))
        rep.check(re.match(r"^(s3|gs|pvc|https?|hdfs|webhdfs|oci)://", uri) is not None and not uri.endswith(".onnx"),
                  ISVC, "spec.predictor.model.storageUri",
                  f"must be a repository URI (a folder holding <model>/<version>/model.onnx), is {uri!r}")
        extra = [str(a) for a in model.get("args") or []]
        for flag in ("--host", "--port"):
            rep.check(flag_value(extra, flag) is None, ISVC, "spec.predictor.model.args",
                      f"{flag} here would contradict the runtime's")


# --------------------------------------------------------- objects, docs

def check_objects(tree, rep):
    for msg in tree.parse_errors:
        rep.errors.append(msg)
    seen = {}
    for path, docs in tree.yaml.items():
        for i, d in enumerate(docs):
            if path == ADAPTER:
                continue  # Helm values, not an object
            if not rep.check(isinstance(d, dict) and d.get("kind") and d.get("apiVersion"), path,
                             f"document {i}", "not an object with kind and apiVersion"):
                continue
            if d["kind"] != "Kustomization":
                rep.check(bool(get(d, "metadata.name")), path, f"{d['kind']}.metadata.name", "missing")
            seen.setdefault(d["kind"], []).append((path, d["apiVersion"]))
    for kind, (path, api) in EXPECTED_OBJECTS.items():
        where = seen.get(kind, [])
        if rep.check(where, path, "kind", f"no {kind} under {K8S_DIR}"):
            for p, a in where:
                rep.check(a == api, p, f"{kind}.apiVersion", f"must be {api}, is {a}")


def check_docs(tree, rep):
    doc = tree.text.get(DOC)
    if not rep.check(doc is not None, DOC, "(file)", "missing"):
        return
    heads = [l.lstrip("#").strip().lower() for l in doc.splitlines() if l.startswith("#")]
    rep.check(any(h.startswith("measured") for h in heads), DOC, "## Measured", "no Measured section")
    rep.check(any("was and was not run" in h for h in heads), DOC, "## What was and was not run", "missing section")
    for path in sorted(tree.yaml) + [DOCKERFILE]:
        rep.check(path in doc or os.path.basename(path) in doc, DOC, "(text)", f"never mentions {path}")
    for name in (REQUEST_COUNTER, HPA_METRIC, READY_PATH, LIVE_PATH):
        rep.check(name in doc, DOC, "(text)", f"never mentions {name}")
    readme = tree.text.get(DOCKER_README)
    if rep.check(readme is not None, DOCKER_README, "(file)", "missing"):
        rep.check("docker build -f packaging/docker/Dockerfile" in readme, DOCKER_README, "(text)",
                  "has no build command run from the repository root")


def check_server_sources(tree, rep):
    """Where serve/ exists, every flag the manifests pass and the counter the
    adapter reads must appear in the server's sources."""
    text = tree.serve_text
    if text is None:
        return False
    flags = set()
    for path, docs in tree.yaml.items():
        for d in docs:
            for c in (get(d, "spec.template.spec.containers") or []) + (get(d, "spec.containers") or []) + \
                    [get(d, "spec.predictor.model") or {}]:
                flags.update(a for a in (c.get("args") or []) if isinstance(a, str) and a.startswith("--"))
    for flag in sorted(flags):
        # "--flag" as written in a usage text or compared, or "flag" as in
        # a getopt_long option table
        rep.check(f'"{flag}' in text or f'"{flag[2:]}"' in text, "serve/", flag,
                  "the manifests pass this flag, the server's sources never name it")
    rep.check(REQUEST_COUNTER in text, "serve/", REQUEST_COUNTER, "the adapter rule reads it, the server never exports it")
    return True


def run_checks(tree):
    rep = Report()
    check_objects(tree, rep)
    facts = check_dockerfile(tree, rep)
    check_plain(tree, rep, facts)
    check_kserve(tree, rep, facts)
    check_docs(tree, rep)
    rep.server_checked = check_server_sources(tree, rep)
    return rep


# --------------------------------------------------------------- self-test
# Each mutation breaks one thing in a copy of the parsed files; the checks
# must then report an error containing the given file and field text.

def _dep_container(t):
    return t.yaml[DEPLOYMENT][0]["spec"]["template"]["spec"]["containers"][0]


def _set_arg(container, flag, value):
    args = container["args"]
    args[args.index(flag) + 1] = value


def _df(old, new):
    def mutate(t):
        assert old in t.text[DOCKERFILE], old
        t.text[DOCKERFILE] = t.text[DOCKERFILE].replace(old, new)
    return mutate


# A stand-in for serve/'s sources naming every flag the manifests pass.
_SERVER_ALL = "\n".join('{"%s", required_argument, 0, 0},' % f for f in (
    "host", "port", "threads", "instances", "queue", "timeout-ms", "max-batch", "batch-delay-us")) + \
    '\nstatic const char counter[] = "%s";' % REQUEST_COUNTER


def _image_uid_20000(t):
    _df("USER 10001:10001", "USER 20000:20000")(t)
    _df("--uid 10001", "--uid 20000")(t)


MUTATIONS = [
    ("Deployment apiVersion", lambda t: t.yaml[DEPLOYMENT][0].update(apiVersion="apps/v1beta1"),
     DEPLOYMENT, "Deployment.apiVersion"),
    ("HPA autoscaling/v1", lambda t: t.yaml[HPA][0].update(apiVersion="autoscaling/v1"), HPA, "apiVersion"),
    ("ServingRuntime kind", lambda t: t.yaml[RUNTIME][0].update(kind="ClusterServingRuntimeX"), RUNTIME, "kind"),
    ("no serve in args", lambda t: _dep_container(t)["args"].remove("serve"), DEPLOYMENT, "containers"),
    ("wrong program", lambda t: _dep_container(t).update(command=["kilnd"]), DEPLOYMENT, "command+args"),
    ("repository not /models", lambda t: _set_arg(_dep_container(t), "serve", "/srv"), DEPLOYMENT, ".args"),
    ("host 127.0.0.1", lambda t: _set_arg(_dep_container(t), "--host", "127.0.0.1"), DEPLOYMENT, ".args"),
    ("--port differs from containerPort", lambda t: _set_arg(_dep_container(t), "--port", "9000"), DEPLOYMENT, ".args"),
    ("readiness path", lambda t: _dep_container(t)["readinessProbe"]["httpGet"].update(path="/healthz"),
     DEPLOYMENT, "readinessProbe.httpGet.path"),
    ("liveness path", lambda t: _dep_container(t)["livenessProbe"]["httpGet"].update(path=READY_PATH),
     DEPLOYMENT, "livenessProbe.httpGet.path"),
    ("readiness port", lambda t: _dep_container(t)["readinessProbe"]["httpGet"].update(port=9999),
     DEPLOYMENT, "readinessProbe.httpGet.port"),
    ("startup path", lambda t: _dep_container(t)["startupProbe"]["httpGet"].update(path="/"),
     DEPLOYMENT, "startupProbe.httpGet.path"),
    ("no liveness", lambda t: _dep_container(t).pop("livenessProbe"), DEPLOYMENT, "livenessProbe"),
    ("no memory limit", lambda t: _dep_container(t)["resources"]["limits"].pop("memory"),
     DEPLOYMENT, "resources.limits"),
    ("threads over cpu", lambda t: _set_arg(_dep_container(t), "--threads", "16"), DEPLOYMENT, ".args"),
    ("grace too short", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["template"]["spec"].update(
        terminationGracePeriodSeconds=10), DEPLOYMENT, "terminationGracePeriodSeconds"),
    ("no grace", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["template"]["spec"].pop("terminationGracePeriodSeconds"),
     DEPLOYMENT, "terminationGracePeriodSeconds"),
    ("runAsUser", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["template"]["spec"]["securityContext"].update(runAsUser=0),
     DEPLOYMENT, "runAsUser"),
    ("runAsNonRoot", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["template"]["spec"]["securityContext"].pop("runAsNonRoot"),
     DEPLOYMENT, "runAsNonRoot"),
    ("models mount", lambda t: _dep_container(t)["volumeMounts"][0].update(mountPath="/data"),
     DEPLOYMENT, "volumeMounts"),
    ("models writable", lambda t: _dep_container(t)["volumeMounts"][0].update(readOnly=False),
     DEPLOYMENT, "readOnly"),
    ("volume name", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["template"]["spec"]["volumes"][0].update(name="m"),
     DEPLOYMENT, "volumes"),
    ("claim name", lambda t: t.yaml[PVC][0]["metadata"].update(name="other"), PVC, "metadata.name"),
    ("no /tmp", lambda t: _dep_container(t)["volumeMounts"].pop(1), DEPLOYMENT, "volumeMounts"),
    ("selector", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["selector"]["matchLabels"].update(app="x"),
     DEPLOYMENT, "spec.selector"),
    ("scrape port", lambda t: t.yaml[DEPLOYMENT][0]["spec"]["template"]["metadata"]["annotations"].update(
        {"prometheus.io/port": "9090"}), DEPLOYMENT, "prometheus.io/port"),
    ("service selector", lambda t: t.yaml[SERVICE][0]["spec"].update(selector={"app": "other"}),
     SERVICE, "spec.selector"),
    ("service targetPort", lambda t: t.yaml[SERVICE][0]["spec"]["ports"][0].update(targetPort="metrics"),
     SERVICE, "targetPort"),
    ("service targetPort number", lambda t: t.yaml[SERVICE][0]["spec"]["ports"][0].update(targetPort=8080),
     SERVICE, "targetPort"),
    ("hpa target name", lambda t: t.yaml[HPA][0]["spec"]["scaleTargetRef"].update(name="kiln-server"),
     HPA, "scaleTargetRef.name"),
    ("hpa target kind", lambda t: t.yaml[HPA][0]["spec"]["scaleTargetRef"].update(kind="StatefulSet"),
     HPA, "scaleTargetRef"),
    ("hpa metric", lambda t: t.yaml[HPA][0]["spec"]["metrics"][0]["pods"]["metric"].update(name="requests_per_second"),
     HPA, "metric.name"),
    ("hpa replicas", lambda t: t.yaml[HPA][0]["spec"].update(minReplicas=20), HPA, "minReplicas"),
    ("hpa target type", lambda t: t.yaml[HPA][0]["spec"]["metrics"][0]["pods"]["target"].update(type="Utilization"),
     HPA, "target.type"),
    ("adapter name", lambda t: t.yaml[ADAPTER][0]["rules"]["custom"][0]["name"].update(
        {"as": "kiln_requests_per_second"}), HPA, "metric.name"),
    ("adapter series", lambda t: t.yaml[ADAPTER][0]["rules"]["custom"][0].update(seriesQuery="kiln_requests_total"),
     ADAPTER, "rules.custom"),
    ("adapter matches", lambda t: t.yaml[ADAPTER][0]["rules"]["custom"][0]["name"].update(matches="^kiln_http_(.*)$"),
     ADAPTER, "name.matches"),
    ("adapter no rate", lambda t: t.yaml[ADAPTER][0]["rules"]["custom"][0].update(
        metricsQuery="sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)"), ADAPTER, "metricsQuery"),
    ("adapter overrides", lambda t: t.yaml[ADAPTER][0]["rules"]["custom"][0]["resources"].update(overrides={}),
     ADAPTER, "overrides"),
    ("podmonitor port", lambda t: t.yaml[PODMONITOR][0]["spec"]["podMetricsEndpoints"][0].update(port="web"),
     PODMONITOR, "port"),
    ("podmonitor path", lambda t: t.yaml[PODMONITOR][0]["spec"]["podMetricsEndpoints"][0].update(path="/stats"),
     PODMONITOR, "path"),
    ("pdb selector", lambda t: t.yaml[PDB][0]["spec"]["selector"].update(matchLabels={"app": "x"}), PDB, "selector"),
    ("kustomization missing file", lambda t: t.yaml[KUSTOMIZATION][0]["resources"].append("ingress.yaml"),
     KUSTOMIZATION, "resources"),
    ("kustomization drops hpa", lambda t: t.yaml[KUSTOMIZATION][0]["resources"].remove("hpa.yaml"),
     KUSTOMIZATION, "resources"),
    ("runtime format", lambda t: t.yaml[RUNTIME][0]["spec"].update(supportedModelFormats=[{"name": "tensorflow"}]),
     RUNTIME, "supportedModelFormats"),
    ("runtime protocol", lambda t: t.yaml[RUNTIME][0]["spec"].update(protocolVersions=["v1"]),
     RUNTIME, "protocolVersions"),
    ("runtime container name", lambda t: t.yaml[RUNTIME][0]["spec"]["containers"][0].update(name="kiln"),
     RUNTIME, "containers[0].name"),
    ("runtime repo dir", lambda t: _set_arg(t.yaml[RUNTIME][0]["spec"]["containers"][0], "serve", "/models"),
     RUNTIME, ".args"),
    ("runtime port", lambda t: _set_arg(t.yaml[RUNTIME][0]["spec"]["containers"][0], "--port", "8000"),
     RUNTIME, ".args"),
    ("runtime readiness", lambda t: t.yaml[RUNTIME][0]["spec"]["containers"][0]["readinessProbe"]["httpGet"].update(
        path=LIVE_PATH), RUNTIME, "readinessProbe.httpGet.path"),
    ("runtime metrics port", lambda t: t.yaml[RUNTIME][0]["spec"]["annotations"].update(
        {"prometheus.kserve.io/port": "8082"}), RUNTIME, "prometheus.kserve.io/port"),
    ("isvc runtime", lambda t: t.yaml[ISVC][0]["spec"]["predictor"]["model"].update(runtime="kserve-tritonserver"),
     ISVC, "model.runtime"),
    ("isvc protocol", lambda t: t.yaml[ISVC][0]["spec"]["predictor"]["model"].update(protocolVersion="v1"),
     ISVC, "protocolVersion"),
    ("isvc format", lambda t: t.yaml[ISVC][0]["spec"]["predictor"]["model"]["modelFormat"].update(name="pytorch"),
     ISVC, "modelFormat.name"),
    ("isvc single file", lambda t: t.yaml[ISVC][0]["spec"]["predictor"]["model"].update(
        storageUri="s3://b/digits/1/model.onnx"), ISVC, "storageUri"),
    ("isvc port arg", lambda t: t.yaml[ISVC][0]["spec"]["predictor"]["model"]["args"].extend(["--port", "9"]),
     ISVC, "model.args"),
    ("Dockerfile one stage", _df("FROM debian:12 AS build\n", ""), DOCKERFILE, "FROM: multi-stage"),
    ("Dockerfile build stage not Debian 12", _df("FROM debian:12 AS build", "FROM debian:11 AS build"),
     DOCKERFILE, "FROM (build)"),
    ("Dockerfile root user", _df("USER 10001:10001", "USER root"), DOCKERFILE, "USER"),
    ("Dockerfile no user", _df("USER 10001:10001", ""), DOCKERFILE, "USER"),
    ("Dockerfile named user", _df("USER 10001:10001", "USER kiln"), DOCKERFILE, "USER"),
    ("Dockerfile uid not created", _df("--uid 10001", "--uid 10002"), DOCKERFILE, "USER"),
    ("Dockerfile entrypoint", _df('ENTRYPOINT ["kiln", "serve"]', 'ENTRYPOINT ["kiln"]'), DOCKERFILE, "ENTRYPOINT"),
    ("Dockerfile shell entrypoint", _df('ENTRYPOINT ["kiln", "serve"]', "ENTRYPOINT kiln serve"),
     DOCKERFILE, "ENTRYPOINT"),
    ("Dockerfile cmd host", _df('"--host", "0.0.0.0"', '"--host", "127.0.0.1"'), DOCKERFILE, "CMD"),
    ("Dockerfile expose", _df("EXPOSE 8000", "EXPOSE 8080"), DOCKERFILE, "EXPOSE"),
    ("Dockerfile tests on", _df("-DKILN_BUILD_TESTS=OFF", "-DKILN_BUILD_TESTS=ON"), DOCKERFILE, "RUN (build)"),
    ("Dockerfile no install", _df("cmake --install", "cmake --build"), DOCKERFILE, "RUN (build)"),
    ("Dockerfile dev at run time", _df("libmicrohttpd12 libcjson1", "libmicrohttpd-dev libcjson1"),
     DOCKERFILE, "RUN (runtime)"),
    ("Dockerfile slim", _df("FROM debian:12-slim AS runtime", "FROM ubuntu:24.04 AS runtime"),
     DOCKERFILE, "FROM (runtime)"),
    ("Dockerfile no copy", _df("COPY --from=build", "COPY --from=builder"), DOCKERFILE, "COPY"),
    ("dockerignore", lambda t: t.text.update({DOCKERIGNORE: t.text[DOCKERIGNORE].replace("\n.git\n", "\n")}),
     DOCKERIGNORE, ".git"),
    ("image uid differs from runAsUser", _image_uid_20000, DEPLOYMENT, "runAsUser"),
    ("doc Measured", lambda t: t.text.update({DOC: t.text[DOC].replace("## Measured", "## Numbers")}),
     DOC, "Measured"),
    ("doc file list", lambda t: t.text.update({DOC: t.text[DOC].replace("pdb.yaml", "pdb")}), DOC, "pdb.yaml"),
    ("Dockerfile not Release", _df("-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_BUILD_TYPE=Debug"),
     DOCKERFILE, "Release"),
    ("Dockerfile no cJSON headers", _df("libmicrohttpd-dev libcjson-dev", "libmicrohttpd-dev"),
     DOCKERFILE, "libcjson-dev"),
    ("Dockerfile no cJSON at run time", _df("libmicrohttpd12 libcjson1", "libmicrohttpd12"),
     DOCKERFILE, "libcjson1"),
    ("Dockerfile CMD repository", _df('CMD ["/models"', 'CMD ["/srv/models"'), DOCKERFILE, "CMD"),
    ("dockerignore build", lambda t: t.text.update({DOCKERIGNORE: t.text[DOCKERIGNORE].replace("\nbuild\n", "\n")}),
     DOCKERIGNORE, "build"),
    ("docker README", lambda t: t.text.update({DOCKER_README: t.text[DOCKER_README].replace(
        "docker build -f packaging/docker/Dockerfile", "docker build")}), DOCKER_README, "build command"),
    ("doc run section", lambda t: t.text.update({DOC: t.text[DOC].replace(
        "## What was and was not run", "## Status")}), DOC, "was and was not run"),
    ("doc metric", lambda t: t.text.update({DOC: t.text[DOC].replace(HPA_METRIC, "the rate")}), DOC, HPA_METRIC),
    ("podmonitor selector", lambda t: t.yaml[PODMONITOR][0]["spec"]["selector"].update(matchLabels={"app": "x"}),
     PODMONITOR, "selector"),
    ("startup port", lambda t: _dep_container(t)["startupProbe"]["httpGet"].update(port="metrics"),
     DEPLOYMENT, "startupProbe.httpGet.port"),
    ("object without name", lambda t: t.yaml[SERVICE][0]["metadata"].pop("name"), SERVICE, "metadata.name"),
    ("missing object", lambda t: t.yaml.pop(PDB), PDB, "no PodDisruptionBudget"),
    ("server lacks a flag", lambda t: setattr(t, "serve_text", _SERVER_ALL.replace('"instances"', "")),
     "serve/", "--instances"),
    ("server lacks the counter", lambda t: setattr(t, "serve_text", _SERVER_ALL.replace(REQUEST_COUNTER, "x")),
     "serve/", REQUEST_COUNTER),
    ("YAML syntax", lambda t: t.parse_errors.append(f"{SERVICE}: (file): not valid YAML: mutated"),
     SERVICE, "not valid YAML"),
]


def self_test(tree):
    failures = []
    control = copy.deepcopy(tree)
    control.serve_text = _SERVER_ALL
    errors = run_checks(control).errors
    if errors:
        failures.append(f"control: server sources naming every flag still give errors: {errors}")
    for name, mutate, path, field in MUTATIONS:
        t = copy.deepcopy(tree)
        try:
            mutate(t)
        except (KeyError, IndexError, ValueError, AssertionError, TypeError) as e:
            failures.append(f"{name}: the mutation itself failed ({e!r}): the files changed shape, update MUTATIONS")
            continue
        errors = run_checks(t).errors
        if not any(e.startswith(path + ":") and field in e for e in errors):
            failures.append(f"{name}: expected an error on {path} mentioning {field!r}, got {errors or 'none'}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))
    ap.add_argument("--no-self-test", action="store_true", help="skip showing that every check can fail")
    opts = ap.parse_args()
    tree = Tree(opts.root)
    rep = run_checks(tree)
    for e in rep.errors:
        print(f"FAIL {e}")
    if not rep.server_checked:
        print("note: serve/ not present: flags and metric names not checked against the server's sources")
    if rep.errors:
        print(f"{rep.checks - len(rep.errors)} passed, {len(rep.errors)} failed")
        return 1
    print(f"PASS: {rep.checks} checks of {len(tree.yaml)} YAML files, the Dockerfile and {DOC}")
    if opts.no_self_test:
        print(f"{rep.checks} passed, 0 failed")
        return 0
    failures = self_test(tree)
    for f in failures:
        print(f"SELF-TEST FAIL {f}")
    caught = len(MUTATIONS) - len(failures) + (0 if any(f.startswith("control:") for f in failures) else 1)
    print(f"self-test: {len(MUTATIONS) - len(failures)} of {len(MUTATIONS)} broken copies caught")
    print(f"{rep.checks + caught} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
