//go:build tools

// The API packages the test runs the oracle on, kept in go.mod and
// go.sum by go mod tidy.
package main

import (
	_ "github.com/cert-manager/cert-manager/pkg/apis/acme/v1"
	_ "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	_ "sigs.k8s.io/cluster-api/api/core/v1beta1"
	_ "sigs.k8s.io/cluster-api/api/core/v1beta2"
	_ "sigs.k8s.io/gateway-api/apis/v1"
	_ "sigs.k8s.io/gateway-api/apisx/v1alpha1"
	_ "sigs.k8s.io/kueue/apis/kueue/v1alpha1"
	_ "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	_ "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	_ "sigs.k8s.io/network-policy-api/apis/v1alpha2"
	_ "sigs.k8s.io/network-policy-api/apis/v1beta1"
)
