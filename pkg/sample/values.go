package sample

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// formatValues are values of the formats the server checks (those of
// kube-openapi's format registry a CRD may name), each with a way to make
// the n-th of several distinct ones.
func formatValue(format string, n int) (string, bool) {
	switch format {
	case "date-time", "datetime":
		return fmt.Sprintf("2024-01-%02dT00:00:00Z", 1+n%28), true
	case "date":
		return fmt.Sprintf("2024-01-%02d", 1+n%28), true
	case "duration":
		return fmt.Sprintf("%dm", 1+n), true
	case "byte":
		return []string{"c2FtcGxl", "c2FtcGxlMg==", "c2FtcGxlMw=="}[n%3], true
	case "uuid", "uuid4":
		return fmt.Sprintf("123e4567-e89b-42d3-a456-%012d", 426614174000+n), true
	case "uuid3":
		return fmt.Sprintf("123e4567-e89b-32d3-a456-%012d", 426614174000+n), true
	case "uuid5":
		return fmt.Sprintf("123e4567-e89b-52d3-a456-%012d", 426614174000+n), true
	case "email":
		return fmt.Sprintf("user%d@example.com", n), true
	case "hostname":
		return fmt.Sprintf("host%d.example.com", n), true
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", 1+n%254), true
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", 1+n), true
	case "cidr":
		return fmt.Sprintf("192.0.2.%d/32", 1+n%254), true
	case "mac":
		return fmt.Sprintf("00:00:5e:00:53:%02x", 1+n%254), true
	case "uri", "url":
		return fmt.Sprintf("https://example.com/%d", n), true
	case "hexcolor":
		return fmt.Sprintf("#%06x", n), true
	case "rgbcolor":
		return fmt.Sprintf("rgb(%d,0,0)", n%256), true
	case "bsonobjectid":
		return fmt.Sprintf("%024x", n+1), true
	case "isbn", "isbn10":
		return "0306406152", true
	case "isbn13":
		return "9780306406157", true
	case "creditcard":
		return "4111111111111111", true
	case "ssn":
		return fmt.Sprintf("123-45-%04d", 6789+n), true
	case "password":
		return fmt.Sprintf("secret%d", n), true
	}
	return "", false
}

// shapes are the strings a repair tries in turn where a rule refuses a
// plain word: the kinds of value CEL rules most often ask a string to be
// (an IP, an image reference, a URL, a DNS name, a path, a number, a
// duration, a time), and the object's own name, which rules compare
// fields with.
func shapes(name string) []string {
	return []string{name, "192.0.2.1", "192.0.2.0/24", "registry.example.com/repo/sample:v1", "https://example.com/sample", "sample.example.com",
		"example.com/sample", "/sample", "1", "1h", "2024-01-01T00:00:00Z", "Sample", "sample-1"}
}

// str makes a string for s: an enum value, a value of its format, one its
// pattern matches, or a plain word, within its length bounds. n makes it
// the n-th of several distinct ones (set items, map keys).
func str(s *apiextensionsv1.JSONSchemaProps, n, variant int, name string) any {
	if len(s.Enum) > 0 {
		return enumValue(s.Enum, n+variant)
	}
	lo, hi := 0, math.MaxInt
	if s.MinLength != nil {
		lo = int(*s.MinLength)
	}
	if s.MaxLength != nil {
		hi = int(*s.MaxLength)
	}
	fits := func(v string) bool {
		l := len([]rune(v))
		return l >= lo && l <= hi && (s.Pattern == "" || matches(s.Pattern, v))
	}
	if v, ok := formatValue(s.Format, n+variant); ok && fits(v) {
		return v
	}
	if s.Pattern != "" {
		if v, ok := fromPattern(s.Pattern, lo, hi, n+variant); ok {
			return v
		}
	}
	if sh := shapes(name); variant > 0 && variant <= len(sh) && fits(sh[variant-1]) {
		v := sh[variant-1]
		if n > 0 {
			v += strconv.Itoa(n) // distinct items: a suffix keeps most shapes
		}
		return v
	}
	word := "sample"
	if n+variant > 0 {
		word += strconv.Itoa(n + variant)
	}
	for len(word) < lo {
		word += "x"
	}
	if len(word) > hi {
		word = word[len(word)-hi:]
	}
	return word
}

func matches(pattern, v string) bool {
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(v)
}

// enumValue is the i-th value of an enum (round), decoded.
func enumValue(enum []apiextensionsv1.JSON, i int) any {
	var v any
	_ = utiljson.Unmarshal(enum[i%len(enum)].Raw, &v)
	return v
}

// number makes a number for s within its bounds and a multiple of its
// multipleOf: 1 where that is allowed, else the lowest allowed value
// (variant 1: the highest). n moves it up by n steps, for distinct items.
func number(s *apiextensionsv1.JSONSchemaProps, integer bool, n, variant int) any {
	if len(s.Enum) > 0 {
		return enumValue(s.Enum, n+variant)
	}
	step := 1.0
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		step = *s.MultipleOf
	}
	if !integer && s.MultipleOf == nil {
		step = 0.5
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if s.Minimum != nil {
		lo = *s.Minimum
		if s.ExclusiveMinimum {
			lo = nextAbove(lo, step, integer)
		}
	}
	if s.Maximum != nil {
		hi = *s.Maximum
		if s.ExclusiveMaximum {
			hi = nextBelow(hi, step, integer)
		}
	}
	if s.Format == "int32" {
		lo, hi = math.Max(lo, math.MinInt32), math.Min(hi, math.MaxInt32)
	}
	v := 1.0
	if v < lo || v > hi || math.Mod(v, step) != 0 {
		v = math.Ceil(lo/step) * step
		if math.IsInf(lo, -1) {
			v = math.Floor(hi/step) * step
		}
	}
	if variant%2 == 1 && !math.IsInf(hi, 1) {
		v = math.Floor(hi/step) * step
	}
	v += float64(n) * step
	if v > hi {
		v -= float64(n) * step * 2
	}
	if integer || v == math.Trunc(v) {
		return int64(v)
	}
	return v
}

func nextAbove(x, step float64, integer bool) float64 {
	if integer || step != 0.5 {
		return math.Floor(x/step)*step + step
	}
	return x + step
}

func nextBelow(x, step float64, integer bool) float64 {
	if integer || step != 0.5 {
		return math.Ceil(x/step)*step - step
	}
	return x - step
}

// keyName is the n-th key of a map sample.
func keyName(n int) string {
	return "key" + strconv.Itoa(n+1)
}

// dnsName makes a name the server takes as metadata.name of any kind (a
// DNS label, so also a subdomain).
func dnsName(kind string) string {
	name := strings.ToLower(kind)
	name = regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(name, "-")
	name = strings.Trim(name, "-")
	if name == "" {
		name = "sample"
	}
	if len(name) > 50 {
		name = name[:50]
	}
	return name + "-sample"
}
