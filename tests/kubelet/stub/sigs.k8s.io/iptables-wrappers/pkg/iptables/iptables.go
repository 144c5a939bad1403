// Package iptables declares what kubelet 1.38 calls of sigs.k8s.io/iptables-wrappers/pkg/iptables (see go.mod): the
// types, the constants, and a NewBestEffort that finds no iptables client.
package iptables

import (
	"context"
	"time"
)

// Chain, Table, RulePosition and Protocol are the names iptables uses.
type (
	Chain        string
	Table        string
	RulePosition string
	Protocol     string
	// Mode is how NewBestEffort chooses the iptables binaries.
	Mode string
)

const (
	TableFilter      Table        = "filter"
	TableMangle      Table        = "mangle"
	TableNAT         Table        = "nat"
	ChainInput       Chain        = "INPUT"
	ChainOutput      Chain        = "OUTPUT"
	Prepend          RulePosition = "-I"
	Append           RulePosition = "-A"
	ProtocolIPv4     Protocol     = "IPv4"
	ProtocolIPv6     Protocol     = "IPv6"
	UseInstalledMode Mode         = "installed"
)

// Interface is the part of an iptables client kubelet uses.
type Interface interface {
	EnsureChain(ctx context.Context, table Table, chain Chain) (bool, error)
	EnsureRule(ctx context.Context, position RulePosition, table Table, chain Chain, args ...string) (bool, error)
	IsIPv6() bool
	Protocol() Protocol
	Monitor(ctx context.Context, canary Chain, tables []Table, reloadFunc func(), interval time.Duration)
}

// NewBestEffort returns no client: kubelet then runs without its iptables chains.
func NewBestEffort(ctx context.Context, mode Mode) map[Protocol]Interface {
	return map[Protocol]Interface{}
}
