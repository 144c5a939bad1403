module kubenode.test/pause

go 1.26
