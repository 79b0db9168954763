#!/usr/bin/env bash
# Writes a fleet repository into DIR (a git work tree): clusters/bench
# holds N Kustomizations (default 50), each of its own app directory (a
# base of a Deployment, a Service and a ConfigMap, an overlay with a
# patch, postBuild substitutions from a ConfigMap of the cluster and
# inline), and M HelmReleases (default 10) of one chart of the repository
# (values from a ConfigMap, a targetPath and inline values; the chart has
# a values.schema.json).
#
# Usage: test/bench/fluxrepo.sh DIR [N] [M]
set -euo pipefail
dir=$1 n=${2:-50} m=${3:-10}
src=$(cd "$(dirname "$0")/../../pkg/flux/testdata/repo" && pwd)
mkdir -p "$dir/clusters/bench" "$dir/charts"
cp -r "$src/charts/web" "$dir/charts/web"
cat > "$dir/clusters/bench/vars.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  CLUSTER: bench
  REPLICAS: "2"
YAML
for ((i = 0; i < n; i++)); do
	app=$dir/apps/app$i
	mkdir -p "$app/base" "$app/overlay"
	cat > "$app/base/deployment.yaml" <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: \${APP}
spec:
  replicas: \${REPLICAS}
  selector:
    matchLabels:
      app: \${APP}
  template:
    metadata:
      labels:
        app: \${APP}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/\${APP}:\${TAG:=1.0.$i}
          env:
            - name: CLUSTER
              value: \${CLUSTER}
          ports:
            - containerPort: 8080
YAML
	cat > "$app/base/service.yaml" <<YAML
apiVersion: v1
kind: Service
metadata:
  name: \${APP}
spec:
  selector:
    app: \${APP}
  ports:
    - {port: 80, targetPort: 8080}
YAML
	cat > "$app/base/config.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: \${APP}-config
data:
  cluster: \${CLUSTER}
  index: "$i"
YAML
	printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deployment.yaml, service.yaml, config.yaml]\n' > "$app/base/kustomization.yaml"
	cat > "$app/overlay/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [../base]
patches:
  - target: {kind: Deployment}
    patch: |
      - {op: add, path: /spec/template/spec/containers/0/resources, value: {limits: {memory: 128Mi}}}
YAML
	cat > "$dir/clusters/bench/app$i.yaml" <<YAML
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app$i
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/app$i/overlay
  prune: true
  targetNamespace: team$((i % 5))
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substitute: {APP: app$i}
    substituteFrom:
      - {kind: ConfigMap, name: cluster-vars}
YAML
done
for ((i = 0; i < m; i++)); do
	cat > "$dir/clusters/bench/web$i.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: web$i-values
  namespace: flux-system
data:
  values.yaml: |
    replicaCount: $((1 + i % 3))
  tag: "2.$i.0"
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web$i
  namespace: flux-system
spec:
  interval: 10m
  targetNamespace: web
  chart:
    spec:
      chart: ./charts/web
      sourceRef: {kind: GitRepository, name: flux-system}
  valuesFrom:
    - {kind: ConfigMap, name: web$i-values}
    - {kind: ConfigMap, name: web$i-values, valuesKey: tag, targetPath: image.tag}
  values:
    service: {port: $((8000 + i))}
YAML
done
git -C "$dir" init -q
git -C "$dir" add -A
git -C "$dir" -c user.email=bench@example.com -c user.name=bench commit -qm fleet
