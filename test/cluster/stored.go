package cluster

import (
	"context"
	"encoding/json"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
)

// etcdPrefix is where the test server keeps its objects in etcd.
const etcdPrefix = "/kubectl-crd"

// StoredVersions reads, from etcd itself, the apiVersion every object of a
// custom resource is stored at, by "namespace/name" ("name" for
// cluster-scoped ones): what the API cannot tell (it converts on read).
func (c *Cluster) StoredVersions(ctx context.Context, group, resource string) (map[string]string, error) {
	client := v3client.New(c.etcd.Server)
	defer client.Close()
	prefix := etcdPrefix + "/" + group + "/" + resource + "/"
	resp, err := client.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		var obj struct {
			APIVersion string `json:"apiVersion"`
		}
		if err := json.Unmarshal(kv.Value, &obj); err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(string(kv.Key), prefix)] = obj.APIVersion
	}
	return out, nil
}
