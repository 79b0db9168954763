package cost

import (
	"fmt"
)

// Refusal is the server's message for a cost over its limit (costName:
// "estimated rule cost", or "x-kubernetes-validations estimated rule cost
// total for entire OpenAPIv3 schema").
func Refusal(costName string, cost, limit uint64) string {
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, Factor(cost, limit))
}

// The server's names of the costs it refuses.
const (
	RuleCostName              = "estimated rule cost"
	MessageExpressionCostName = "estimated messageExpression cost"
	TotalCostName             = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
)

// Factor is how the server words how far a cost exceeds its limit:
// "more than 100x", "1.234000x" under 1.5, else "3.2x".
func Factor(cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	switch {
	case f > 100:
		return "more than 100x"
	case f < 1.5:
		return fmt.Sprintf("%fx", f)
	}
	return fmt.Sprintf("%.1fx", f)
}
